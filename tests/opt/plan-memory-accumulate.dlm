# RUN: %dlmc --emit=opt %s > %t.dlmir
# RUN: FileCheck %s --check-prefix=GRAPH < %t.dlmir
# RUN: %dlm-opt --passes=plan-memory --stats --verify-each %t.dlmir 2>&1 >/dev/null | FileCheck %s
# plan-memory's accumulate rule (accumulatorOperand): a matmul_bias whose addend has the
# result's type takes the addend's buffer when nothing else reads the addend, followed back
# through the loop variable's Switch port, Merge and Enter to the value the loop starts from.
# Here: the recurrent forward step tanh(x @ w + h) (the old h is read by nothing else) and the
# gradient's weight accumulator (acc + x.T @ dz in the backward loop) take it; the last loop
# keeps the old accumulator (prev = acc), so its matmul_bias must not: 2 of 3. (It starts from
# ones: a zeros(2, 4) there would be one value with the gradient's start after cse, read by
# both loops, and the plan gives a loop's accumulator its start value's buffer only when nothing
# else reads that value; the engines still update it in place from the second iteration on.)

def loss(w, xs):
    h = zeros(1, 4)
    t = 0
    while t < 3:
        h = tanh(xs[t] @ w + h)
        t += 1
    return sum(h)

seed(0)
xs = randn(3, 1, 2)
w = randn(2, 4)
print(grad(loss)(w, xs))
acc = ones(2, 4)
prev = acc
i = 0
while i < 3:
    prev = acc
    acc = acc + transpose(xs[i]) @ xs[i] @ w
    i += 1
print(prev)
print(acc)

# GRAPH: %[[H:[0-9]+]]:2 = Switch({{.*}}) : f32[1, 4], f32[1, 4] in @grad.loss.while0
# GRAPH: matmul_bias(%{{[0-9]+}}, %{{[0-9]+}}, %[[H]]#1) {relu = false} : f32[1, 4] in @grad.loss.while0
# GRAPH: %[[G:[0-9]+]]:2 = Switch({{.*}}) : f32[2, 4], f32[2, 4] in @grad.loss.for1
# GRAPH: matmul_bias(%{{[0-9]+}}, %{{[0-9]+}}, %[[G]]#1) {relu = false} : f32[2, 4] in @grad.loss.for1
# GRAPH: %[[A:[0-9]+]]:2 = Switch({{.*}}) : f32[2, 4], f32[2, 4] in @main.while2
# GRAPH: matmul_bias(%{{[0-9]+}}, %{{[0-9]+}}, %[[A]]#1) {relu = false} : f32[2, 4] in @main.while2
# GRAPH: NextIteration(%[[A]]#1)

# CHECK: stats: plan-memory.in-place-accumulate = 2
