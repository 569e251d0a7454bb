# RUN: %python %src/tests/codegen/Inputs/exit-status.py 1 %dlm run %s | FileCheck %s
# A type error inside a stdlib function (here nn.linear, reached through nn.mlp) is reported
# where the shapes meet, followed by the calls that led there, up to the line of this file:
# the user sees their own call, not only the library's line.
import nn

def loss_fn(params, x, y):
    return cross_entropy(nn.mlp(params, x), y)

params = nn.init_mlp(28, 16, 10)
g = grad(loss_fn)(params, ones(4, 784), tensor([1, 2, 3, 4]))
print(g)
# CHECK: nn.dlm:{{[0-9]+}}:{{[0-9]+}}: error: matmul: 784 columns on the left vs 28 rows on the right (f32[4, 784] @ f32[28, 16])
# CHECK: note: 'x' is f32[4, 784], defined here
# CHECK: note: 'w' is f32[28, 16], defined here
# CHECK: nn.dlm:{{[0-9]+}}:{{[0-9]+}}: note: 'nn.linear' called here
# CHECK-NEXT: return linear(l2, relu(linear(l1, x)))
# CHECK: stdlib_error_call_chain.dlm:8:26: note: 'nn.mlp' called here
# CHECK-NEXT: return cross_entropy(nn.mlp(params, x), y)
# CHECK: 1 error generated
