"""PyTorch twin of tests/autodiff/hvp_long_loop.dlm."""
from adref import *
def f(x, w):
    for i in range(10000):
        x = x + torch.sin(x * w) * 0.0001
    return (x * x).sum()
x = t([0.5, -0.3, 0.8, 1.2])
w = t([1.5, 0.7, -1.1, 0.4])
v = c([1.0, 2.0, -1.0, 0.5])
g, = torch.autograd.grad(f(x, w), x, create_graph=True)
hx, hw = torch.autograd.grad((g * v).sum(), (x, w))
out(hx)
out(hw)
