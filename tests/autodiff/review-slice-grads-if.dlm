# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.out
# RUN: %python %S/twins/review_slice_grads_if.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlmc --emit=graph %s | %dlm-opt - -O2 --stats 2>&1 >/dev/null | FileCheck %s
# An `if` inside a loop whose branches read windows of one pre-activation (an LSTM-like cell
# taking a different gate formula on odd steps). At -O2 concat-grads turns the backward sum of
# the windows' slice_grads into a concat whose `+ 0.0` constants must be made in every
# iteration: they used to hang from the backward if's Switch, so in the iterations taking the
# other branch the concat, and with it the loop's next gradient, was dead: the JIT stopped with
# an internal error ("a loop's next value must not be conditional") and the graph executor
# printed nothing and exited 0. dlm-diff checks -O0 against -O3 on both engines; the PyTorch
# twin checks the numbers.
# CHECK: stats: concat-grads.concats = 4
# CHECK: stats: merge-stacks.groups = 2

def cell(w, xs, n):
    h = zeros(1, 3, dtype=f64)
    c = zeros(1, 3, dtype=f64)
    t = 0
    while t < n:
        z = xs[t] @ w + h @ w[0:3, :] * 0.5
        a = z[:, 0:3]
        b = z[:, 3:6]
        if t % 2 == 0:
            h = tanh(a) * h + sigmoid(b)
        else:
            h = sigmoid(a) + tanh(b) * h
        c = c + h * a
        t += 1
    return sum(c * c)

def nested(w, xs):
    h = zeros(1, 3, dtype=f64)
    for t in range(3):
        for u in range(2):
            z = (xs[t] + h[:, 0:2] * 0.5) @ w
            if u == 1:
                h = tanh(z[:, 0:3]) * sigmoid(z[:, 3:6])
            else:
                h = h + sigmoid(z[:, 0:3]) - tanh(z[:, 3:6])
    return sum(h)

xs = tensor([[[0.5, -1.0, 0.25]], [[1.5, 0.75, -0.5]], [[-0.25, 0.5, 1.0]], [[0.8, -0.3, 0.1]]]).astype(f64)
w = tensor([[0.1, -0.2, 0.3, 0.4, -0.5, 0.6], [-0.7, 0.8, 0.9, -0.1, 0.2, -0.3],
            [0.35, 0.15, -0.45, 0.25, 0.05, -0.6]]).astype(f64)
print(grad(cell)(w, xs, 4))
print(grad(cell)(w, xs, 1))
print(grad(nested)(w[0:2, :], xs[:, :, 0:2]))
