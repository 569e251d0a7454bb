# RUN: dlm-ad --emit=grad %s | FileCheck %s
# RUN: %dlmc --emit=grad %s | FileCheck %s
# Activity analysis: only ops on a path from the differentiated parameter (x) to the result get
# gradient nodes. y is not differentiated, so exp(y) and cos(y) get none (no node is marked
# grad_of "exp" or "cos"), and no adjoint is ever materialised as zeros: the adjoint of b, of
# the unused c and of y stay symbolic. `--emit=grad` marks each gradient node with its forward
# op, that op's location and the call it was inlined through (grad(f) at line 15).

def f(x, y):
    a = sin(x) * 2.0
    b = exp(y)
    c = cos(y) * 3.0
    return sum(a * b)

print(grad(f)(tensor([1.0, 2.0]), tensor([0.5, 0.25])))

# CHECK-NOT: zeros
# CHECK-NOT: grad_of "exp"
# CHECK-NOT: grad_of "cos"
# CHECK: broadcast_to({{.*}} : f32[2] loc("{{.*}}graph-activity.dlm":13:12 grad_of "sum" in "grad(f)" at "{{.*}}graph-activity.dlm":15:7)
# CHECK: mul({{.*}}) : f32[2] loc("{{.*}}graph-activity.dlm":13:16 grad_of "mul" in "grad(f)" at "{{.*}}graph-activity.dlm":15:7)
# CHECK: mul({{.*}}) : f32[2] loc("{{.*}}graph-activity.dlm":10:9 grad_of "mul" in "grad(f)" at "{{.*}}graph-activity.dlm":15:7)
# CHECK: cos({{.*}}) : f32[2] loc("{{.*}}graph-activity.dlm":10:9 grad_of "sin" in "grad(f)" at "{{.*}}graph-activity.dlm":15:7)
# CHECK-NOT: zeros
# CHECK-NOT: grad_of "exp"
# CHECK-NOT: grad_of "cos"
