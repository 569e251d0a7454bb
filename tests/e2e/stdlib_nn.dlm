# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/stdlib_nn.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# stdlib nn against PyTorch (twins/stdlib_nn.py, which draws the same random numbers and then
# uses torch.nn.init's gains and fans, torch.nn.functional and torch.nn.LSTMCell/GRUCell with
# the same weights): the initialisers' scales, linear, mlp, mlp3, conv with stride and padding,
# three LSTM and GRU steps, dropout, layer norm, batch norm (1-d and 2-d), and the gradient of
# an MLP's cross-entropy and of an LSTM's output, which PyTorch's autograd computes.
import nn

seed(5)
print(nn.he_normal(6, 4))
print(nn.xavier_uniform(6, 4))
print(nn.uniform(3, 5, lo=-0.5, hi=2.0))

x = randn(4, 6)
lin = nn.init_linear(6, 3)
print(nn.linear(lin, x))
m = nn.init_mlp(6, 8, 3)
print(nn.mlp(m, x))
m3 = nn.init_mlp3(6, 8, 5, 3)
print(nn.mlp3(m3, x))

img = randn(2, 3, 7, 7)
cv = nn.init_conv(3, 4, 3)
print(nn.conv(cv, img, stride=2, padding=1))

xs = randn(3, 2, 4)
lstm = nn.init_lstm(4, 5)
h = zeros(2, 5)
c = zeros(2, 5)
for t in range(3):
    h, c = nn.lstm_cell(lstm, xs[t], h, c)
print(h, c)
gru = nn.init_gru(4, 5)
hg = zeros(2, 5)
for t in range(3):
    hg = nn.gru_cell(gru, xs[t], hg)
print(hg)

d = nn.dropout_layer(x, 30)
print(d)

ln = (randn(6), randn(6))
print(nn.layer_norm(ln, x))
bn = (randn(6), randn(6))
print(nn.batch_norm(bn, x))
bn2 = (randn(3), randn(3))
print(nn.batch_norm2d(bn2, img, eps=1e-3))

def mlp_loss(params, x, y):
    return cross_entropy(nn.mlp(params, x), y)

labels = tensor([0, 2, 1, 2])
g1, g2 = grad(mlp_loss)(m, x, labels)
print(g1[0], g1[1], g2[0], g2[1])

def lstm_out(params, xs):
    h = zeros(2, 5)
    c = zeros(2, 5)
    for t in range(3):
        h, c = nn.lstm_cell(params, xs[t], h, c)
    return sum(h * h) + sum(c)

gwx, gwh, gb = grad(lstm_out)(lstm, xs)
print(gwx, gwh, gb)
