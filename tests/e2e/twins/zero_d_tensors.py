"""PyTorch twin of tests/e2e/zero_d_tensors.dlm: torch's own promotion gives each dtype."""
import torch

from dlmref import dprint


def show(v):
    dprint(v.reshape(-1).numpy())


f32 = lambda v: torch.tensor(v, dtype=torch.float32)
x64 = f32(1.1).double()
tenth = torch.tensor(1.0, dtype=torch.float32).double() / 10.0
big = torch.tensor(2000000000)
show(x64 * f32(0.1))
show(big + torch.tensor(2000000000, dtype=torch.int32))
show(torch.tensor(3) + 1.5)
show(x64 * torch.tensor([1, 2, 3], dtype=torch.int32))
show(torch.tensor(3) / torch.tensor(2))
show(torch.where(torch.tensor(True), tenth, f32(0.5)))
show(f32(0.1) <= 0.1)
show(f32([0.1, 0.2]) <= 0.1)
show(torch.tensor([16777217], dtype=torch.int32) == 16777216.0)
show(f32([0.1]) <= tenth)
show(x64 * f32([0.1, 0.2]))
show(f32(0.1) * 1.1)
show(tenth <= f32(0.1))
