# examples/lstm_sequence.dlm — an LSTM trained on a sequence task.
#
# Task: read a sequence of numbers in [-1, 1] and predict their mean at the end. The model
# steps through the sequence with a `while` loop whose condition is evaluated at run time
# (`t < len(xs)`); grad differentiates through the loop.
# The trained parameters are saved to a checkpoint, loaded back with load(like=...) and
# checked to give the same loss.
import nn
import optim
import metrics

def run(params, xs):
    cell, head = params
    h = zeros(len(xs[0]), 16)
    c = zeros(len(xs[0]), 16)
    t = 0
    while t < len(xs):
        h, c = nn.lstm_cell(cell, xs[t], h, c)
        t += 1
    return nn.linear(head, h)

def loss_fn(params, xs, target):
    return mse(run(params, xs), target)

seed(0)
steps = 12
xs_all = rand(20, 64, 1) * 2.0 - 1.0
xs = xs_all[0:steps]
target = mean(xs, axis=0)
params = nn.init_lstm(1, 16), nn.init_linear(16, 1)
state = optim.adam_init(params)
first = loss_fn(params, xs, target)
print("initial loss", metrics.rounded(first, digits=6))
for it in range(150):
    g = grad(loss_fn)(params, xs, target)
    params, state = optim.adam(params, g, state, lr=0.01)
    if (it + 1) % 50 == 0:
        print("step", it + 1, "loss", metrics.rounded(loss_fn(params, xs, target), digits=6))
last = loss_fn(params, xs, target)
assert last < first * 0.5, "the loss should go down"
save("lstm_sequence.safetensors", params)
restored = load("lstm_sequence.safetensors", like=params)
print("reloaded loss equal:", bool(loss_fn(restored, xs, target) == last))
