# examples/graph/lstm_forward.dlm — the LSTM of docs/graph_picture.md, forward pass only:
# an LSTM cell stepped over a sequence by a `while` loop, and a squared error at the end.
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
print(loss(p, randn(3, 1, 2), ones(1, 4)))
