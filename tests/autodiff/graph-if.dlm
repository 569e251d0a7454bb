# RUN: dlm-ad --emit=grad %s | FileCheck %s
# Golden gradient graph of an if/else. Forward: x goes through Switch on the predicate and the
# two sides meet in a Merge. Backward: the adjoint is switched on the *same* predicate (the
# gradient of Merge is Switch), each side applies its rule, and the adjoints of x from the two
# sides meet in a Merge (the gradient of Switch is Merge). The else side's constant is made
# again in the backward, hanging from that side's pivot, instead of being exported.

def f(x):
    if sum(x) > 0.0:
        y = sin(x)
    else:
        y = x * 2.0
    return sum(y)

print(grad(f)(tensor([1.0, 2.0])))

# CHECK: %[[PRED:[0-9]+]] = gt(
# CHECK: %[[XS:[0-9]+]]:2 = Switch(%0, %[[PRED]]) : f32[2], f32[2]
# CHECK: sin(%[[XS]]#1)
# CHECK: Merge(
# CHECK: %[[BX:[0-9]+]]:2 = Switch(%0, %[[PRED]])
# CHECK: %[[COS:[0-9]+]] = cos(%[[BX]]#1)
# CHECK: %[[G:[0-9]+]]:2 = Switch(%{{[0-9]+}}, %[[PRED]]) : f32[2], f32[2]
# CHECK: %[[THEN:[0-9]+]] = mul(%[[G]]#1, %[[COS]])
# CHECK: %[[PIVOT:[0-9]+]] = Identity(
# CHECK: %[[TWO:[0-9]+]] = const() ctrl(%[[PIVOT]]) {value = 2.0}
# CHECK: %[[ELSE:[0-9]+]] = mul(%[[G]], %[[TWO]])
# CHECK: Merge(%[[ELSE]], %[[THEN]]) : f32[2]
