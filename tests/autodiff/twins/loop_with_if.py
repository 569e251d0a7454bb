"""PyTorch twin of tests/autodiff/loop_with_if.dlm."""
from adref import *
def f(x):
    s = x
    for i in range(6):
        if s.sum() > 1.0:
            s = s * 0.7 + torch.cos(s)
        else:
            s = torch.exp(s) * 0.9
    return s.sum()
out(grad(f, t([0.2, 0.5])))
