"""Twin of stdlib_nn.dlm: the same random draws (dlmref.Rng), then PyTorch's definitions —
torch.nn.init's gain and fan rules for the initialisers' scales, torch.nn.functional for the
layers, torch.nn.LSTMCell / GRUCell loaded with nn's weights, and autograd for the gradients."""
import math

import numpy as np
import torch
import torch.nn.functional as F
from dlmref import Rng, dprint

torch.set_default_dtype(torch.float32)
rng = Rng(5)
f32 = np.float32


def fans(n_in, n_out):
    # nn keeps weights as [n_in, n_out]; PyTorch's Linear as [n_out, n_in].
    return torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(n_out, n_in))


def he_normal(n_in, n_out):
    fan_in, _ = fans(n_in, n_out)
    std = torch.nn.init.calculate_gain("relu") / math.sqrt(fan_in)  # kaiming_normal_, fan_in
    return rng.randn(n_in, n_out) * f32(std)


def xavier_uniform(n_in, n_out):
    fan_in, fan_out = fans(n_in, n_out)
    bound = math.sqrt(6.0 / (fan_in + fan_out))  # xavier_uniform_ with gain 1
    return (rng.rand(n_in, n_out) * f32(2.0) - f32(1.0)) * f32(bound)


def uniform(n_in, n_out, lo, hi):
    return rng.rand(n_in, n_out) * f32(hi - lo) + f32(lo)  # uniform_(lo, hi)


def t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def out(*values):
    dprint(*[v.detach().numpy() if isinstance(v, torch.Tensor) else v for v in values])


def init_linear(n_in, n_out):
    return he_normal(n_in, n_out), np.zeros(n_out, f32)


def linear(p, x):
    w, b = p
    return F.linear(x, t(w).T, t(b))


dprint(he_normal(6, 4))
dprint(xavier_uniform(6, 4))
dprint(uniform(3, 5, -0.5, 2.0))

x = t(rng.randn(4, 6))
lin = init_linear(6, 3)
out(linear(lin, x))
m = (init_linear(6, 8), init_linear(8, 3))
out(linear(m[1], F.relu(linear(m[0], x))))
m3 = (init_linear(6, 8), init_linear(8, 5), init_linear(5, 3))
out(linear(m3[2], F.relu(linear(m3[1], F.relu(linear(m3[0], x))))))

img = t(rng.randn(2, 3, 7, 7))
cw = rng.randn(4, 3, 3, 3) * f32(math.sqrt(2.0 / (3 * 3 * 3)))
out(F.conv2d(img, t(cw), torch.zeros(4), stride=2, padding=1))

xs = t(rng.randn(3, 2, 4))
lstm = (xavier_uniform(4, 20), xavier_uniform(5, 20),
        np.concatenate([np.zeros(5, f32), np.ones(5, f32), np.zeros(10, f32)]))


def lstm_module(p):
    cell = torch.nn.LSTMCell(4, 5)  # gates i, f, g, o as nn's
    with torch.no_grad():
        cell.weight_ih.copy_(t(p[0]).T)
        cell.weight_hh.copy_(t(p[1]).T)
        cell.bias_ih.copy_(t(p[2]))
        cell.bias_hh.zero_()
    return cell


cell = lstm_module(lstm)
h, c = torch.zeros(2, 5), torch.zeros(2, 5)
for step in range(3):
    h, c = cell(xs[step], (h, c))
out(h, c)

gru = (xavier_uniform(4, 15), xavier_uniform(5, 15), np.zeros(15, f32))
gcell = torch.nn.GRUCell(4, 5)  # gates r, z, n as nn's; b_hn = 0 since nn has one bias
with torch.no_grad():
    gcell.weight_ih.copy_(t(gru[0]).T)
    gcell.weight_hh.copy_(t(gru[1]).T)
    gcell.bias_ih.copy_(t(gru[2]))
    gcell.bias_hh.zero_()
hg = torch.zeros(2, 5)
for step in range(3):
    hg = gcell(xs[step], hg)
out(hg)

# Inverted dropout (as F.dropout) with dlm's mask: kept where the f64 uniform is >= p.
keep = t(rng.rand(4, 6, dtype=np.float64) >= 0.3)
out(x * keep * f32(1.0 / (1.0 - 0.3)))

ln = (t(rng.randn(6)), t(rng.randn(6)))
out(F.layer_norm(x, (6,), ln[0], ln[1], eps=1e-5))
bn = (t(rng.randn(6)), t(rng.randn(6)))
out(F.batch_norm(x, None, None, bn[0], bn[1], training=True, eps=1e-5))
bn2 = (t(rng.randn(3)), t(rng.randn(3)))
out(F.batch_norm(img, None, None, bn2[0], bn2[1], training=True, eps=1e-3))

labels = torch.tensor([0, 2, 1, 2])
mp = [t(a).clone().requires_grad_() for layer in m for a in layer]
loss = F.cross_entropy(F.linear(F.relu(F.linear(x, mp[0].T, mp[1])), mp[2].T, mp[3]), labels)
loss.backward()
out(*[p.grad for p in mp])

cell = lstm_module(lstm)
h, c = torch.zeros(2, 5), torch.zeros(2, 5)
for step in range(3):
    h, c = cell(xs[step], (h, c))
((h * h).sum() + c.sum()).backward()
out(cell.weight_ih.grad.T, cell.weight_hh.grad.T, cell.bias_ih.grad)
