# examples/graph/lstm_grad.dlm — the LSTM of docs/graph_picture.md and its gradient:
# the forward loop of lstm_forward.dlm plus the backward loop that grad adds (the gradient
# with respect to the bias is printed).
# `examples/graph/make_pictures.sh` draws its dataflow graph.
import nn

def loss(params, xs, y):
    h = zeros(1, 4)
    c = zeros(1, 4)
    t = 0
    while t < len(xs):
        h, c = nn.lstm_cell(params, xs[t], h, c)
        t += 1
    return sum((h - y) * (h - y))

seed(0)
p = nn.init_lstm(2, 4)
print(grad(loss)(p, randn(3, 1, 2), ones(1, 4))[2])
