# LSTM cell in a `while` loop, hidden 32, 100 steps, forward + backward + SGD update, 20
# training iterations: the dispatch-bound case. bench/jit/bench.py divides the run time by 20.
# Twin: lstm_train_torch.py.
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
for it in range(20):
    gwx, gwh, gb, gwo = grad(loss, argnums=(0, 1, 2, 3))(wx, wh, b, wo, xs)
    wx = wx - 0.01 * gwx
    wh = wh - 0.01 * gwh
    b = b - 0.01 * gb
    wo = wo - 0.01 * gwo
print(loss(wx, wh, b, wo, xs))
