# RUN: not %python %src/scripts/dlm-diff.py %bin %s 2> %t.err
# RUN: FileCheck %s < %t.err
# RUN: not %dlm run --engine=graph %s 2>&1 | FileCheck %s
# RUN: %dlmc %s -o %t.exe
# RUN: %python %src/tests/codegen/Inputs/exit-status.py 1 %t.exe 2>&1 | FileCheck %s
# A run-time error two stdlib calls deep (nn.mlp -> nn.linear) inside a differentiated user
# function: autodiff inlines the calls when it flattens loss_fn, and the copied ops keep the
# calls they came through, so the error points at the user's nn.mlp call, then inwards through
# the library, then at the grad(loss_fn) call. Same message on every engine and AOT.
import nn

def loss_fn(params, x, y):
    return cross_entropy(nn.mlp(params, x), y)

n = 0
while n < 3:
    n += 1
params = nn.init_mlp(4, 8, 3)
g = grad(loss_fn)(params, ones(2, n), tensor([0, 1]))
print(g)

# CHECK: runtime_error_grad_chain.dlm:13:26: error: cannot multiply f32[2, 3] by f32[4, 8]: inner dimensions 3 and 4 differ
# CHECK-NEXT: {{^}}    return cross_entropy(nn.mlp(params, x), y)
# CHECK-NEXT: {{^                         \^}}
# CHECK-NEXT: nn.dlm:42:28: note: inside 'nn.mlp'
# CHECK-NEXT: {{^}}    return linear(l2, relu(linear(l1, x)))
# CHECK-NEXT: {{^                           \^}}
# CHECK-NEXT: nn.dlm:34:12: note: inside 'nn.linear'
# CHECK-NEXT: {{^}}    return x @ w + b
# CHECK-NEXT: {{^           \^}}
# CHECK-NEXT: runtime_error_grad_chain.dlm:19:5: note: 'grad(loss_fn)' called here
# CHECK-NEXT: {{^}}g = grad(loss_fn)(params, ones(2, n), tensor([0, 1]))
# CHECK-NEXT: {{^    \^}}
# CHECK-NOT: note:
