"""PyTorch twin of tests/autodiff/continue.dlm."""
from adref import *
def f(x):
    s = x * 0.0
    for i in range(7):
        if i % 2 == 1:
            continue
        s = s + torch.sin(x * i)
    return s.sum()
out(grad(f, t([0.3, 0.7])))
