# The LSTM gradient of bench/jit/lstm_train.dlm (hidden 32, 100 steps) once, with the tensor
# memory it needed: `memory_stats` before the gradient resets the peak, the one after it
# reports the most bytes held at once while it ran. bench/RESULTS.md compares the peak with and
# without `remat` (--passes=...,remat --remat-budget=BYTES), which drops the stack of tanh(c)
# (recomputed in the backward loop from the stacked gates and cell state).
def loss(wx, wh, b, wo, xs):
    h = zeros(1, 32)
    c = zeros(1, 32)
    t = 0
    while t < 100:
        z = xs[t] @ wx + h @ wh + b
        i = sigmoid(z[:, 0:32])
        f = sigmoid(z[:, 32:64])
        g = tanh(z[:, 64:96])
        o = sigmoid(z[:, 96:128])
        c = f * c + i * g
        h = o * tanh(c)
        t += 1
    return sum(h @ wo)

seed(0)
xs = randn(100, 1, 8)
wx = randn(8, 128) * 0.1
wh = randn(32, 128) * 0.1
b = zeros(128)
wo = randn(32, 1) * 0.1
before = memory_stats(xs, wx, wh, b, wo)
gwx, gwh, gb, gwo = grad(loss, argnums=(0, 1, 2, 3))(wx, wh, b, wo, xs)
after = memory_stats(gwx, gwh, gb, gwo)
print("live before", before[0], "peak during the gradient", after[1])
print(sum(gwx), sum(gwh), sum(gb), sum(gwo))
