# RUN: %dlmc -O3 --emit=opt %s | FileCheck %s
# RUN: %dlmc --passes=simplify,cse,constfold,licm,ad-stacks,dce --emit=opt %s | FileCheck %s --check-prefix=PASSES
# RUN: dlm-ad run %s > %t.graph
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: diff %t.graph %t.jit
#
# A checkpointed call's recomputation must run in the backward pass, when the adjoint of the
# call's result exists, not as soon as its arguments do (the graph executor runs every node as
# early as its inputs allow, and would hold the recomputed values as if they had been stored).
# Autodiff passes the arguments through `after(arg, adjoint)`; this pins that edge after the
# optimiser: each recomputation reads `after` copies whose token is the adjoint of its call's
# result — for the first call of a chain, a value computed from the second call's
# recomputation — CSE does not merge a recomputation with the forward call (they read
# different values), and licm leaves a recomputation inside a loop's backward frame.

def layer(w, h):
    return tanh(h @ w) + h

def chain(w, x):
    h1 = checkpoint(layer)(w, x)
    h2 = checkpoint(layer)(w, h1)
    return sum(h2 * h2)

def looped(w, x):
    h = x
    for i in range(3):
        h = checkpoint(layer)(w, h)
    return sum(h * h)

seed(0)
w = randn(3, 3)
x = randn(2, 3)
print(grad(chain)(w, x))
print(grad(looped)(w, x))

# -O3 (fusion merges the elementwise ops): the forward pass of both calls, then the second
# call's recomputation after h2's adjoint, then the first call's after h1's adjoint, which the
# second call's backward computes from its recomputation.
# CHECK: %[[W:[0-9]+]] = randn() {{.*}} : f32[3, 3]
# CHECK-NEXT: %[[X:[0-9]+]] = randn() {{.*}} : f32[2, 3]
# CHECK-NEXT: %[[F1:[0-9]+]] = matmul(%[[X]], %[[W]])
# CHECK-NEXT: %[[H1:[0-9]+]] = fused(%[[F1]], %[[X]])
# CHECK: %[[W2:[0-9]+]] = after(%[[W]], %[[ADJ2:[0-9]+]])
# CHECK-NEXT: %[[H1C:[0-9]+]] = after(%[[H1]], %[[ADJ2]])
# CHECK-NEXT: %[[R2:[0-9]+]] = matmul(%[[H1C]], %[[W2]])
# CHECK-NEXT: %[[D2:[0-9]+]] = fused(%[[R2]], {{.*}})
# CHECK: %[[ADJ1:[0-9]+]] = matmul_bias(%[[D2]], {{.*}})
# CHECK: %[[W1:[0-9]+]] = after(%[[W]], %[[ADJ1]])
# CHECK-NEXT: %[[XC:[0-9]+]] = after(%[[X]], %[[ADJ1]])
# CHECK-NEXT: matmul(%[[XC]], %[[W1]])
# CHECK: print(
# In the loop's backward frame: the popped input and the weights, after the adjoint the
# backward loop carries, feed the recomputed matmul there.
# CHECK: %[[TOP:[0-9]+]] = stack_top({{.*}} in @grad.looped.for1
# CHECK: %[[WL:[0-9]+]] = after(%{{[0-9]+}}, %[[CARRIED:[0-9]+#1]]) : f32[3, 3] in @grad.looped.for1
# CHECK-NEXT: %[[HL:[0-9]+]] = after(%[[TOP]], %[[CARRIED]]) : f32[2, 3] in @grad.looped.for1
# CHECK-NEXT: matmul(%[[HL]], %[[WL]]) : f32[2, 3] in @grad.looped.for1

# The passes one by one, without fusion: the same edges (tanh and add stay separate ops).
# PASSES: %[[W:[0-9]+]] = randn() {{.*}} : f32[3, 3]
# PASSES-NEXT: %[[X:[0-9]+]] = randn() {{.*}} : f32[2, 3]
# PASSES-NEXT: %[[F1:[0-9]+]] = matmul(%[[X]], %[[W]])
# PASSES: %[[W2:[0-9]+]] = after(%[[W]], %[[ADJ2:[0-9]+]])
# PASSES-NEXT: %[[H1C:[0-9]+]] = after(%{{[0-9]+}}, %[[ADJ2]])
# PASSES-NEXT: %[[R2:[0-9]+]] = matmul(%[[H1C]], %[[W2]])
# PASSES-NEXT: %[[T2:[0-9]+]] = tanh(%[[R2]])
# PASSES-NEXT: %[[SQ2:[0-9]+]] = mul(%[[T2]], %[[T2]])
# PASSES-NEXT: %[[DT2:[0-9]+]] = sub(%{{[0-9]+}}, %[[SQ2]])
# PASSES-NEXT: %[[D2:[0-9]+]] = mul(%[[ADJ2]], %[[DT2]])
# PASSES: %[[M2:[0-9]+]] = matmul(%[[D2]], %{{[0-9]+}})
# PASSES-NEXT: %[[ADJ1:[0-9]+]] = add(%[[ADJ2]], %[[M2]])
# PASSES: %[[W1:[0-9]+]] = after(%[[W]], %[[ADJ1]])
# PASSES-NEXT: %[[XC:[0-9]+]] = after(%[[X]], %[[ADJ1]])
# PASSES-NEXT: %[[R1:[0-9]+]] = matmul(%[[XC]], %[[W1]])
# PASSES-NEXT: tanh(%[[R1]])
# PASSES: after({{.*}} in @grad.looped.for1
# PASSES-NEXT: after({{.*}} in @grad.looped.for1
# PASSES-NEXT: matmul({{.*}} in @grad.looped.for1
