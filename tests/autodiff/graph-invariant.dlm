# RUN: dlm-ad --emit=grad %s | FileCheck %s
# Golden gradient graph of a loop invariant: w enters the forward frame once as a constant Enter
# and is not stacked (values from outside a loop flow into the backward directly). Its adjoint
# is a sum carried by the backward frame, starting from zeros, added to in every iteration and
# leaving through an Exit.

def f(w, h):
    for i in range(4):
        h = tanh(w * h)
    return sum(h)

print(grad(f)(tensor([0.5, -0.3]), tensor([1.0, 2.0])))

# CHECK: %[[W:[0-9]+]] = const() {{.*}}value = [0.5, -0.3]
# CHECK-NOT: stack_push({{.*}}%[[W]])
# CHECK: %[[ZEROS:[0-9]+]] = zeros() {dtype = f32, shape = [2]} : f32[2]
# CHECK: Enter(%[[ZEROS]]) {is_constant = false} : f32[2] in @[[BWD:grad.f.for[0-9]+]]
# CHECK: Enter(%[[W]]) {is_constant = true} : f32[2] in @[[BWD]]
# CHECK: %[[ACC:[0-9]+]] = add(%{{[0-9]+}}#1, %{{[0-9]+}}) : f32[2] in @[[BWD]]
# CHECK: NextIteration(%[[ACC]]) : f32[2] in @[[BWD]]
