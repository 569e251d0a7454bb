"""PyTorch twin of tests/autodiff/checkpoint.dlm."""
from adref import *
def block(w, h):
    for i in range(3):
        h = torch.sin(w * h) + h
    return h
def f(w, x):
    h = x
    for k in range(4):
        h = block(w, h)
    return (h * h).sum()
g = grad(f, t([0.3, -0.2]), t([1.0, 0.5]))
out(g)
out(g)
