"""PyTorch twin of tests/autodiff/if_else.dlm."""
from adref import *
def f(x):
    if x.sum() > 0:
        y = torch.sin(x) * x
    else:
        y = x * x * 3.0
    return y.sum()
x = t([0.5, -1.0, 2.0])
out(grad(f, x))
x2 = t([-0.5, 1.0, -2.0])
out(grad(f, x2))
