"""PyTorch twin of tests/autodiff/loop_in_if.dlm."""
from adref import *
def f(x, n):
    if x.sum() > 0:
        for i in range(n):
            x = torch.sin(x) * 1.5
    else:
        x = x * x
    return x.sum()
out(grad(lambda x: f(x, 5), t([0.3, 0.4])))
out(grad(lambda x: f(x, 5), t([-0.3, -0.4])))
