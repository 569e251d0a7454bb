# RUN: not %dlmc --emit=ssa %s 2>&1 | FileCheck %s
# RUN: not %dlm run %s 2>&1 | FileCheck %s
# An error in the user's own function stays at its line there — the user wrote it — and the
# calls that led to it follow, innermost first, as "'F' called here" notes (the types of each
# call decide what the body is checked at). A stdlib call with bad arguments inside the user's
# function is reported at that call, in the user's function, with the library notes and then
# the user's callers.
import nn

def score(a, b):
    return a @ b

def twice(a, b):
    return score(a, b) * 2.0

r = twice(ones(2, 3), ones(4, 5))
# CHECK: user-function-chain.dlm:11:12: error: matmul: 3 columns on the left vs 4 rows on the right (f32[2, 3] @ f32[4, 5])
# CHECK-NEXT: {{^}}    return a @ b
# CHECK-NEXT: {{^ *\^~+$}}
# CHECK-NEXT: user-function-chain.dlm:10:11: note: 'a' is f32[2, 3], defined here
# CHECK: user-function-chain.dlm:10:14: note: 'b' is f32[4, 5], defined here
# CHECK: user-function-chain.dlm:14:12: note: 'score' called here
# CHECK-NEXT: {{^}}    return score(a, b) * 2.0
# CHECK: user-function-chain.dlm:16:5: note: 'twice' called here
# CHECK-NEXT: {{^}}r = twice(ones(2, 3), ones(4, 5))
# CHECK-NOT: note:

def model(params, x):
    h = nn.linear(params, x)
    return relu(h)

def loss(params, x):
    return sum(model(params, x))

layer = nn.init_linear(3, 4)
g = grad(loss)(layer, ones(2, 7))
# CHECK: user-function-chain.dlm:29:9: error: matmul: 7 columns on the left vs 3 rows on the right (f32[2, 7] @ f32[3, 4])
# CHECK-NEXT: {{^}}    h = nn.linear(params, x)
# CHECK-NEXT: {{^ *\^~+$}}
# CHECK-NEXT: user-function-chain.dlm:29:27: note: argument 'x' of 'nn.linear' is f32[2, 7]
# CHECK: user-function-chain.dlm:29:19: note: element [0] of argument 'params' of 'nn.linear' is f32[3, 4] ('w' in 'nn.linear')
# CHECK: nn.dlm:{{[0-9]+}}:12: note: inside 'nn.linear'
# CHECK-NEXT: {{^}}    return x @ w + b
# CHECK: user-function-chain.dlm:33:16: note: 'model' called here
# CHECK-NEXT: {{^}}    return sum(model(params, x))
# CHECK: user-function-chain.dlm:36:5: note: 'loss' called here
# CHECK-NEXT: {{^}}g = grad(loss)(layer, ones(2, 7))
# CHECK-NOT: note:
# CHECK: 2 errors generated
