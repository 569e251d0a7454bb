"""PyTorch twin of tests/autodiff/untaken_nan.dlm."""
from adref import *
def f(x):
    if x.sum() > 0:
        return (torch.log(x) + 1.0 / x).sum()
    return (x * 2.0).sum()
out(grad(f, t([-1.0, 0.0, -2.0])))
