"""PyTorch twin of tests/autodiff/calls.dlm."""
from adref import *
def layer(w, v):
    return torch.sigmoid(w * v + 0.5)
def f(w, x):
    return (layer(w, x) ** 2 + layer(w, x * x)).sum()
out(grad(f, t([0.3, -0.4]), t([1.5, 2.0])))
