# RUN: %python %src/tests/codegen/Inputs/exit-status.py 1 %dlm run %s | FileCheck %s
# A type error inside a stdlib function (here nn.linear, reached through nn.mlp) is reported
# at the user's call, in this file: the notes name the arguments whose types clash and show the
# library lines in between ("inside"), then the calls of the user's own function, as a run-time
# error inside the library is (runtime_error_call_chain.dlm).
import nn

def loss_fn(params, x, y):
    return cross_entropy(nn.mlp(params, x), y)

params = nn.init_mlp(28, 16, 10)
g = grad(loss_fn)(params, ones(4, 784), tensor([1, 2, 3, 4]))
print(g)
# CHECK: stdlib_error_call_chain.dlm:9:26: error: matmul: 784 columns on the left vs 28 rows on the right (f32[4, 784] @ f32[28, 16])
# CHECK-NEXT: {{^}}    return cross_entropy(nn.mlp(params, x), y)
# CHECK-NEXT: {{^ *\^~*$}}
# CHECK-NEXT: stdlib_error_call_chain.dlm:9:41: note: argument 'x' of 'nn.mlp' is f32[4, 784]
# CHECK-NEXT: {{^}}    return cross_entropy(nn.mlp(params, x), y)
# CHECK-NEXT: {{^ *\^~*$}}
# CHECK-NEXT: stdlib_error_call_chain.dlm:9:33: note: element [0][0] of argument 'params' of 'nn.mlp' is f32[28, 16] ('w' in 'nn.linear')
# CHECK-NEXT: {{^}}    return cross_entropy(nn.mlp(params, x), y)
# CHECK-NEXT: {{^ *\^~*$}}
# CHECK-NEXT: nn.dlm:{{[0-9]+}}:28: note: inside 'nn.mlp'
# CHECK-NEXT: {{^}}    return linear(l2, relu(linear(l1, x)))
# CHECK-NEXT: {{^ *\^~*$}}
# CHECK-NEXT: nn.dlm:{{[0-9]+}}:12: note: inside 'nn.linear'
# CHECK-NEXT: {{^}}    return x @ w + b
# CHECK-NEXT: {{^ *\^~*$}}
# CHECK-NEXT: stdlib_error_call_chain.dlm:12:5: note: 'loss_fn' called here
# CHECK-NEXT: {{^}}g = grad(loss_fn)(params, ones(4, 784), tensor([1, 2, 3, 4]))
# CHECK-NEXT: {{^ *\^~*$}}
# CHECK-NEXT: 1 error generated
