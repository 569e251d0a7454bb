"""PyTorch twin of tests/autodiff/while_data_dependent.dlm."""
from adref import *
def f(x):
    while (x * x).sum() < 100.0:
        x = x * 1.5 + torch.sin(x)
    return (x * x).sum()
out(grad(f, t([1.0, 2.0, 0.5])))
out(grad(f, t([0.1, 0.2, 0.3])))
