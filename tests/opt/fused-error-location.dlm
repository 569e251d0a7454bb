# RUN: not %python %src/scripts/dlm-diff.py %bin %s > %t.out 2> %t.err
# RUN: FileCheck %s < %t.err
# RUN: FileCheck %s --check-prefix=OUT < %t.out
# RUN: %dlmc --emit=opt -O2 %s | FileCheck %s --check-prefix=FUSED
# A broadcast that fails at run time (h's size is known only then) inside an elementwise chain
# that fuse-elementwise makes one 'fused' node: the fused node took its root's location, so at
# -O2/-O3 the error pointed at `tanh(` where -O0 points at the product (dlm-diff: the levels'
# errors differ). It now reports at the first member that can fail. (Found by tests/fuzz.)

n = 0
while n < 3:
    n += 1
h = ones(n)
w = ones(2)
print("before")
print(exp(tanh(w * h)))

# CHECK: fused-error-location.dlm:[[@LINE-2]]:16: error: cannot broadcast f32[2] with f32[3]
# CHECK-NEXT: print(exp(tanh(w * h)))
# CHECK-NEXT: {{^               \^}}
# OUT: before
# FUSED: fused({{.*}}) {body = "
