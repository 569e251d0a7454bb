"""Twin of gru_gates.dlm: the same GRU with one weight per gate, trained by SGD with PyTorch's
autograd on the same random draws (dlm's Philox stream, dlmref.Rng)."""
import numpy as np
import torch
from dlmref import Rng, dprint

rng = Rng(3)
xs = torch.from_numpy(rng.randn(6, 1, 3))
y = torch.from_numpy(rng.randn(1, 2))
half = np.float32(0.5)
params = [rng.randn(3, 5) * half, rng.randn(3, 5) * half, rng.randn(3, 5) * half,
          rng.randn(5, 5) * half, rng.randn(5, 5) * half, rng.randn(5, 5) * half,
          np.zeros(5, np.float32), np.zeros(5, np.float32), np.zeros(5, np.float32),
          rng.randn(5, 2) * half]
params = [torch.tensor(p, requires_grad=True) for p in params]


def loss(p):
    wz, wr, wn, uz, ur, un, bz, br, bn, wo = p
    h = torch.zeros(1, 5)
    for t in range(6):
        x = xs[t]
        z = torch.sigmoid(x @ wz + h @ uz + bz)
        r = torch.sigmoid(x @ wr + h @ ur + br)
        n = torch.tanh(x @ wn + (r * h) @ un + bn)
        h = (1.0 - z) * n + z * h
    return torch.mean((h @ wo - y) ** 2)


for step in range(5):
    grads = torch.autograd.grad(loss(params), params)
    with torch.no_grad():
        params = [(p - 0.5 * g).requires_grad_() for p, g in zip(params, grads)]
    dprint(np.float32(loss(params).item()))
