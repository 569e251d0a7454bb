# RUN: dlm-ad --emit=grad %s | FileCheck %s
# Golden gradient graph of checkpoint(inner): the forward computes inner once and keeps only its
# argument; the backward recomputes inner's body from `after(argument, adjoint)` — the argument
# once the adjoint of the call's result exists, so the recomputation runs in the backward pass —
# and differentiates the recomputation (exp's gradient reads the recomputed exp, sin's the
# argument). tests/autodiff/checkpoint-order.dlm checks that the optimiser keeps this order.

def inner(v):
    return exp(sin(v))

def f(x):
    return sum(checkpoint(inner)(x) * x)

print(grad(f)(tensor([0.5, 1.0])))

# CHECK: %[[FSIN:[0-9]+]] = sin(%0)
# CHECK: exp(%[[FSIN]])
# CHECK: %[[ADJ:[0-9]+]] = mul(%{{[0-9]+}}, %0) : f32[2] {{.*}}grad_of "mul"
# CHECK: %[[ARG:[0-9]+]] = after(%0, %[[ADJ]]) : f32[2]
# CHECK: %[[SIN:[0-9]+]] = sin(%[[ARG]]) : f32[2]
# CHECK: %[[EXP:[0-9]+]] = exp(%[[SIN]]) : f32[2]
# CHECK: mul(%{{[0-9]+}}, %[[EXP]])
# CHECK: cos(%[[ARG]])
