"""PyTorch twin of tests/e2e/nan_propagation.dlm: torch's NaN rules for the max/min ops."""
import torch

from dlmref import dprint

nan = float("nan")
inf = float("inf")
first = torch.tensor([True, False, False, False])
x = torch.where(first, torch.tensor(nan), torch.tensor([1.5, -2.0, 0.0, 3.0]))


def show(*vs):
    dprint(*[v.detach().numpy() for v in vs])


show(torch.relu(x))
show(torch.relu(x.double()))
show(torch.relu(-torch.zeros(3)))
show(torch.relu(x * 2.0 + 1.0) * 3.0)


def grad_of_weighted(v):
    v = v.clone().requires_grad_(True)
    (torch.relu(v) * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=v.dtype)).sum().backward()
    return v.grad


show(grad_of_weighted(x))
show(grad_of_weighted(x.double()))

r16 = torch.arange(16)
b16 = torch.where(r16 == 3, nan, torch.where(r16 == 5, -10.0, torch.zeros(16)))
show(torch.relu(torch.ones(2, 8) @ torch.ones(8, 16) + b16))
show(torch.relu(torch.ones(64, 64) * 0.01 @ torch.ones(64, 16) + b16)[0])
r64 = torch.arange(64)
col = torch.where(r64 == 1, nan, torch.where(r64 == 2, -10.0, torch.zeros(64)))
show(torch.relu(torch.ones(64, 64) * 0.01 @ torch.ones(64, 16) + col.reshape(64, 1))[0:3, 0:2])

show(torch.maximum(x, torch.tensor(0.5)), torch.minimum(x, torch.tensor(0.5)), torch.clamp(x, -1.0, 1.0))
show(torch.max(x), torch.min(x), torch.argmax(x), torch.argmax(torch.where(first, 0.0, x)))
show(torch.softmax(x, -1), torch.log_softmax(x, -1))
show(torch.logsumexp(x, 0), torch.logsumexp(torch.where(first, nan, inf), 0),
     torch.logsumexp(torch.where(first, nan, -inf), 0))
show(torch.logsumexp(torch.tensor([nan]), 0))
show(torch.nn.functional.max_pool2d(x.reshape(1, 1, 2, 2), 2))
