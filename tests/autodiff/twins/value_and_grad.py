"""PyTorch twin of tests/autodiff/value_and_grad.dlm."""
from adref import *
a = c([0.1, 0.2])
b = t([1.0, -1.0])
y = (torch.exp(a) * b).sum() + (b * b).sum()
out(y)
out(torch.autograd.grad(y, b))
