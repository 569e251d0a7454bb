# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# Every nn function type-checks and computes what it says (values checked against hand results
# or invariants; both engines must agree).
import nn

seed(1)
w = nn.he_normal(400, 300)
print("he std", abs(sqrt(mean(w * w)) - sqrt(2.0 / 400)) < 0.003)
u = nn.xavier_uniform(400, 300)
print("xavier bound", max(abs(u)) <= sqrt(6.0 / 700))
v = nn.uniform(50, 60, lo=2.0, hi=3.0)
print("uniform range", min(v) >= 2.0, max(v) <= 3.0)
# CHECK: he std tensor(True, dtype=bool)
# CHECK: xavier bound tensor(True, dtype=bool)
# CHECK: uniform range tensor(True, dtype=bool) tensor(True, dtype=bool)

lin = (ones(3, 2), tensor([1.0, -1.0]))
print(nn.linear(lin, ones(4, 3)).shape, nn.linear(lin, ones(1, 3)))
# CHECK: 4 2 tensor({{\[\[}}4., 2.]])
m = nn.init_mlp(5, 7, 3)
print(nn.mlp(m, ones(2, 5)).shape)
m3 = nn.init_mlp3(5, 7, 6, 3)
print(nn.mlp3(m3, ones(2, 5)).shape)
# CHECK: 2 3
# CHECK: 2 3

cv = nn.init_conv(1, 4, 3)
print(nn.conv(cv, ones(2, 1, 8, 8), padding=1).shape)
# CHECK: 2 4 8 8

lstm = nn.init_lstm(3, 5)
h, c = nn.lstm_cell(lstm, ones(2, 3), zeros(2, 5), zeros(2, 5))
print(h.shape, c.shape, max(abs(h)) < 1.0)
# CHECK: 2 5 2 5 tensor(True, dtype=bool)
gru = nn.init_gru(3, 5)
h = nn.gru_cell(gru, ones(2, 3), zeros(2, 5))
print(h.shape, max(abs(h)) < 1.0)
# CHECK: 2 5 tensor(True, dtype=bool)

x = tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 6.0]])
ln = nn.layer_norm(nn.init_layer_norm(4), x)
print("layer norm", abs(mean(ln)) < 1e-6, abs(mean(ln * ln) - 1.0) < 1e-3)
# CHECK: layer norm tensor(True, dtype=bool) tensor(True, dtype=bool)
print("dropout", nn.dropout_layer(ones(3), 50, training=False))
# CHECK: dropout tensor([1., 1., 1.])
# Training: half the entries are dropped, the kept ones scaled by 2 (mean stays near 1).
seed(3)
d = nn.dropout_layer(ones(1000), 50, training=True)
print("dropout training", sum(d) / 1000.0 > 0.8, sum(d) / 1000.0 < 1.2, max(d))
# CHECK: dropout training tensor(True, dtype=bool) tensor(True, dtype=bool) tensor(2.)

# Batch norm: each column of [[1, 2], [3, 6]] becomes (-1, 1), then gain and bias apply.
bx = tensor([[1.0, 2.0], [3.0, 6.0]])
bn = nn.batch_norm((tensor([2.0, 1.0]), tensor([0.5, 0.0])), bx)
print("batch norm", max(abs(bn - tensor([[-1.5, -1.0], [2.5, 1.0]]))) < 1e-4)
# CHECK: batch norm tensor(True, dtype=bool)
fm = randn(4, 3, 5, 5) * 3.0 + 1.0
b2 = nn.batch_norm2d(nn.init_batch_norm(3), fm)
print("batch norm 2d", max(abs(mean(b2, axis=(0, 2, 3)))) < 1e-5,
      max(abs(mean(b2 * b2, axis=(0, 2, 3)) - 1.0)) < 1e-3)
# CHECK: batch norm 2d tensor(True, dtype=bool) tensor(True, dtype=bool)
