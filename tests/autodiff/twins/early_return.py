"""PyTorch twin of tests/autodiff/early_return.dlm."""
from adref import *
def f(x):
    s = x
    i = 0
    while i < 50:
        s = s * 1.2 + 0.1
        if s.sum() > 10.0:
            return (s * x).sum()
        i += 1
    return s.sum()
def g(x):
    if x.sum() < 0:
        return torch.exp(x).sum()
    return (x * x * x).sum()
out(grad(f, t([0.5, 1.0])))
out(grad(g, t([0.5, 1.0])))
out(grad(g, t([-0.5, 0.1])))
