"""PyTorch twin of tests/autodiff/nested_loops.dlm."""
from adref import *
def f(x):
    s = x
    for i in range(3):
        for j in range(i + 1):
            for k in range(j):
                s = torch.sin(s) + x * 0.5
            s = s * 1.1
    return s.sum()
out(grad(f, t([1.0, 2.0, 3.0])))
