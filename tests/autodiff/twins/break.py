"""PyTorch twin of tests/autodiff/break.dlm."""
from adref import *
def f(x):
    s = x
    for i in range(100):
        s = torch.tanh(s) * 1.3 + x * 0.2
        if s.sum() > 3.0:
            break
    return (s * s).sum()
out(grad(f, t([0.5, 0.4, 0.3])))
