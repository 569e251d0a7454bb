"""PyTorch twin of tests/autodiff/unused_exit.dlm."""
from adref import *
def f(x):
    a = x
    for i in range(3):
        a = a * 1.5
    return a.sum()
out(grad(f, t([0.2, 0.4])))
