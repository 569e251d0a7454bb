"""PyTorch twin of tests/autodiff/hvp.dlm."""
from adref import *
def f(x):
    for i in range(3):
        x = torch.tanh(x) + x * x * 0.1
    return (x * x).sum()
x = t([0.5, -0.3, 0.8])
v = c([1.0, 2.0, -1.0])
g, = torch.autograd.grad(f(x), x, create_graph=True)
h, = torch.autograd.grad((g * v).sum(), x)
out(h)
