# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/gru_gates.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# RUN: %dlmc --emit=graph %s | %dlm-opt - -O2 --stats 2>&1 >/dev/null | FileCheck %s
# A GRU on one sequence (batch 1), written with one weight matrix per gate as papers write it
# (the stdlib's cell concatenates them), stepped by a `while` loop and trained by SGD inside a
# `for` loop; the twin trains the same model with PyTorch's autograd. At -O2 `fuse-horizontal`
# turns the gate matmuls that share an operand into one matmul by the concatenated weights:
# x_t by wz, wr, wn and h by uz, ur, in the loss's forward loop and in the gradient's forward
# loop. The weights change once per training step, so their concatenation is built once per
# step, in the training loop, for all the steps of the time loop.
# CHECK: stats: fuse-horizontal.groups = 4
# CHECK: stats: fuse-horizontal.matmuls-fused = 10

def gru(params, xs):
    wz, wr, wn, uz, ur, un, bz, br, bn, wo = params
    h = zeros(1, 5)
    t = 0
    while t < 6:
        x = xs[t]
        z = sigmoid(x @ wz + h @ uz + bz)
        r = sigmoid(x @ wr + h @ ur + br)
        n = tanh(x @ wn + (r * h) @ un + bn)
        h = (1.0 - z) * n + z * h
        t += 1
    return h @ wo

def loss(params, xs, y):
    return mean((gru(params, xs) - y) ** 2)

seed(3)
xs = randn(6, 1, 3)
y = randn(1, 2)
params = (randn(3, 5) * 0.5, randn(3, 5) * 0.5, randn(3, 5) * 0.5,
          randn(5, 5) * 0.5, randn(5, 5) * 0.5, randn(5, 5) * 0.5,
          zeros(5), zeros(5), zeros(5), randn(5, 2) * 0.5)
for step in range(5):
    g = grad(loss)(params, xs, y)
    wz, wr, wn, uz, ur, un, bz, br, bn, wo = params
    gwz, gwr, gwn, guz, gur, gun, gbz, gbr, gbn, gwo = g
    params = (wz - 0.5 * gwz, wr - 0.5 * gwr, wn - 0.5 * gwn, uz - 0.5 * guz, ur - 0.5 * gur,
              un - 0.5 * gun, bz - 0.5 * gbz, br - 0.5 * gbr, bn - 0.5 * gbn, wo - 0.5 * gwo)
    print(loss(params, xs, y))
