# An LSTM cell on one sequence (one-row state) stepped by a `while` loop and differentiated
# (tests/opt/merge-stacks-run.test): the forward loop saves 8 one-row values per step (the
# gates, both states, tanh of the new cell state and the input row), which `merge-stacks`
# puts on one stack, and the backward sums the four gate windows' gradients, which
# `concat-grads` makes one concat. The gradients are saved bit for bit and printed.
def loss(wx, wh, b, xs):
    h = zeros(1, 4)
    c = zeros(1, 4)
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

seed(11)
xs = randn(6, 1, 3)
wx = randn(3, 16) * 0.5
wh = randn(4, 16) * 0.5
b = randn(16) * 0.1
gwx, gwh, gb = grad(loss, argnums=(0, 1, 2))(wx, wh, b, xs)
print(gwx)
print(gwh)
print(gb)
save("lstm_row_grads.safetensors", (gwx, gwh, gb))
