# examples/adaptive_computation.dlm — adaptive computation time (Graves 2016), simplified.
#
# A recurrent cell refines its state until a learned halting unit says stop: every step emits
# a halting probability p_t = sigmoid(h_t . v + c); the loop runs while the accumulated halting
# mass is below 0.99 (and at most 20 steps), so how many steps run depends on the data and on
# the parameters. The output is the p-weighted mean of the states, and a small ponder cost
# (the number of steps' worth of remaining mass) rewards halting early. grad differentiates
# through the data-dependent while loop; the task is regression to sin of the input sum.
import nn
import optim
import metrics

def act(params, x):
    w, u, v, c, head = params
    h = tanh(x @ u)
    total = zeros(len(x), 1)
    remaining = ones(len(x), 1)
    out = zeros(len(x), 8)
    steps = 0
    ponder = zeros()
    while mean(remaining) > 0.01 and steps < 20:
        h = tanh(h @ w + x @ u)
        p = sigmoid(h @ v + c)
        p = minimum(p, remaining)
        out = out + p * h
        remaining = remaining - p
        ponder = ponder + mean(remaining)
        steps += 1
    return nn.linear(head, out), ponder, steps

def loss_fn(params, x, y):
    pred, ponder, steps = act(params, x)
    return mse(pred, y) + 0.001 * ponder

seed(0)
x = randn(128, 4) * 0.5
y = sin(sum(x, axis=1, keepdims=True))
params = (randn(8, 8) * 0.3, randn(4, 8) * 0.5, randn(8, 1) * 0.1, zeros(1) - 2.0,
          nn.init_linear(8, 1))
state = optim.adam_init(params)
pred, ponder, steps = act(params, x)
first = loss_fn(params, x, y)
print("before: loss", metrics.rounded(first), "steps", steps)
for it in range(200):
    g = grad(loss_fn)(params, x, y)
    params, state = optim.adam(params, g, state, lr=0.01)
pred, ponder, steps = act(params, x)
last = loss_fn(params, x, y)
print("after:  loss", metrics.rounded(last), "steps", steps)
assert last < first * 0.5, "training through the halting loop should reduce the loss"
