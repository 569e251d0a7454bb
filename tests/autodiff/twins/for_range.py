"""PyTorch twin of tests/autodiff/for_range.dlm."""
from adref import *
def f(x, n):
    s = x
    for i in range(n):
        s = s * x + 1.0 / (i + 1.0)
    return s.sum()
out(grad(lambda x: f(x, 4), t([0.5, -1.5, 2.0])))
out(grad(lambda x: f(x, 0), t([0.5, -1.5, 2.0])))
