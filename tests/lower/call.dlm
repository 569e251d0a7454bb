# RUN: %dlmc --emit=graph %s | FileCheck %s
# Calls are inlined: each call of affine becomes its own mul/add nodes, bound to the call's
# arguments; the graph has no call node. Side effects stay ordered: print follows randn.

# CHECK-LABEL: graph @main {
# CHECK:       %[[X:.*]] = randn()
# CHECK:       %[[M1:.*]] = mul(%[[X]], %{{.*}}) : f32[4]
# CHECK:       %[[Y:.*]] = add(%[[M1]], %{{.*}}) : f32[4]
# CHECK:       %[[M2:.*]] = mul(%[[Y]], %{{.*}}) : f32[4]
# CHECK:       %[[Z:.*]] = add(%[[M2]], %[[X]]) : f32[4]
# CHECK:       print(%[[Z]]) ctrl(%[[X]]) : ()
# CHECK-NOT:   call
def affine(a, b):
    return a * 2.0 + b

x = randn(4)
y = affine(x, 1.0)
z = affine(y, x)
print(z)
