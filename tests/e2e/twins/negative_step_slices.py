"""PyTorch/NumPy twin of tests/e2e/negative_step_slices.dlm (torch has no negative steps: flip)."""
import numpy as np
import torch

from dlmref import dprint

y = np.arange(24).reshape(4, 6).astype(np.float32)
dprint(y[::-1, 1:2])
dprint(y[::-2, :])
dprint(y[2::-1, 0])
dprint(y[:, ::-3])
dprint(y[::1, 4:])
w = torch.tensor(y, requires_grad=True)
(torch.flip(w, [0])[:, ::2] * torch.arange(12.0).reshape(4, 3)).sum().backward()
dprint(w.grad.numpy())
