# RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d
# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# A seed of the whole-pipeline fuzzer (docs/testing.md "Fuzzing"): a recurrent model from the
# standard library (a GRU cell, layer norm, a linear head) trained with Adam, gradient clipping
# and a cosine learning-rate schedule, its parameters saved and loaded back with like=, so that
# mutants reach the stdlib's modules, the optimiser state's tuples and checkpoint files.
# CHECK: epoch 0
# CHECK: epoch 2
# CHECK: reloaded
# CHECK: done
import nn
import optim
import metrics

def model(params, xs):
    cell, norm_p, head = params
    h = zeros(2, 6)
    t = 0
    while t < xs.shape[0]:
        h = nn.gru_cell(cell, xs[t], h)
        t += 1
    return nn.linear(head, nn.layer_norm(norm_p, h))

def loss(params, xs, y):
    return metrics.cross_entropy_loss(model(params, xs), y)

seed(11)
xs = randn(4, 2, 3)
y = tensor([1, 0])
params = (nn.init_gru(3, 6), nn.init_layer_norm(6), nn.init_linear(6, 2))
state = optim.adam_init(params)
for epoch in range(3):
    value, g = value_and_grad(loss)(params, xs, y)
    g = optim.clip_by_global_norm(g, 1.0)
    lr = optim.cosine_decay(0.05, epoch, 3)
    params, state = optim.adam(params, g, state, lr=lr)
    print("epoch", epoch, metrics.rounded(value, 3))
save("rnn.safetensors", params)
back = load("rnn.safetensors", like=params)
print("reloaded", loss(back, xs, y) == loss(params, xs, y), metrics.accuracy(model(back, xs), y))
print("done")
