"""PyTorch twin of tests/autodiff/if_elif_else.dlm."""
from adref import *
def f(x, w):
    s = (x * w).sum()
    if s > 1.0:
        return s * s
    elif s > -1.0:
        return torch.sin(s) * 2.0
    return torch.exp(s)
for k in range(3):
    x = t([1.0 * (1.5 - k * 1.5), 2.0 * (1.5 - k * 1.5), 3.0 * (1.5 - k * 1.5)])
    w = t([0.3, -0.2, 0.5])
    out(grad(f, x, w))
