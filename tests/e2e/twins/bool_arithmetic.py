"""PyTorch twin of tests/e2e/bool_arithmetic.dlm: torch's bool tensors, Python's bool scalars."""
import numpy as np
import torch

from dlmref import dprint

x = torch.arange(4) > 1
y = torch.arange(4) < 3
dprint((x * y).float().numpy())
dprint((x + y).float().numpy())
dprint((x / y).numpy())
dprint(((x * y) + x).float().numpy())
a = torch.arange(3).sum() > 1
b = torch.arange(3).sum() > 5
dprint((a * b).float().numpy(), (a + b).float().numpy(), (a / b).numpy())
dprint(np.abs(x.numpy()), np.maximum(y.numpy(), False), np.abs(a.numpy()), np.maximum(b.numpy(), False),
       np.abs(x.numpy())[3])
t, f = True, False
dprint(t + t, t * f, -t, t - t, t / t)
n = 0
for i in range(4):
    n = n + (i > 1) + (i > 2)
dprint(n)
