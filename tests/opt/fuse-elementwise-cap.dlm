# RUN: %dlmc --emit=opt -O2 %s | FileCheck %s
# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s --check-prefix=OUT
# A chain of 70 elementwise ops is two fused nodes, not one: fuse-elementwise stops a group at 64
# statements (kMaxFusedStatements), so that no generated loop body, and no LLVM function, grows
# with the length of a straight-line program (issue #27: one fused node of N ops took time
# quadratic in N to compile). The first fused node takes the 6 ops nearest the start, the second
# the last 64, reading the first's result; the result is the same on both engines.

# CHECK:      %[[C:.*]] = mul(%{{.*}}, %{{.*}}) : f32[4]
# CHECK-NEXT: %[[K:.*]] = const() {value = 1.0001} : f64[]
# CHECK-NEXT: %[[F1:.*]] = fused(%{{.*}}, %[[K]], %[[C]]) {body = "%3 = mul(%0, %1) : f32; {{.*}}; %8 = add(%7, %2) : f32"} : f32[4]
# CHECK-NEXT: %[[F2:.*]] = fused(%[[F1]], %[[K]], %[[C]]) {body = "%3 = mul(%0, %1) : f32; {{.*}}; %66 = add(%65, %2) : f32"} : f32[4]
# CHECK-NEXT: print(%[[F2]])
# OUT: tensor([
seed(0)
x = rand(4)
c = rand(4) * 0.001
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
x = x * 1.0001 + c
print(x)
