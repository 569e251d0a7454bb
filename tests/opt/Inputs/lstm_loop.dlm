# An LSTM cell stepped by a `while` loop and differentiated (tests/opt/remat-loop*.test): the
# forward loop stacks each step's gates, cell state and tanh of the new cell state for the
# backward. tanh(f * c + i * g) is recomputable from four stacked values, so under a memory
# budget `remat` drops its stack. The gradients are saved bit for bit and printed.
def loss(wx, wh, b, xs):
    h = zeros(2, 4)
    c = zeros(2, 4)
    t = 0
    while t < 6:
        z = xs[t] @ wx + h @ wh + b
        i = sigmoid(z[:, 0:4])
        f = sigmoid(z[:, 4:8])
        g = tanh(z[:, 8:12])
        o = sigmoid(z[:, 12:16])
        c = f * c + i * g
        h = o * tanh(c)
        t += 1
    return sum(h * h)

seed(7)
xs = randn(6, 2, 3)
wx = randn(3, 16) * 0.5
wh = randn(4, 16) * 0.5
b = randn(16) * 0.1
gwx, gwh, gb = grad(loss, argnums=(0, 1, 2))(wx, wh, b, xs)
print(gwx)
print(gwh)
print(gb)
save("lstm_loop_grads.safetensors", (gwx, gwh, gb))
