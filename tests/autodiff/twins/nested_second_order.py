"""PyTorch twin of tests/autodiff/nested_second_order.dlm."""
from adref import *
def f(x):
    s = x
    for i in range(3):
        for j in range(2):
            s = torch.sin(s * x) + 0.3
    return s
x = t(0.6)
g, = torch.autograd.grad(f(x), x, create_graph=True)
out(torch.autograd.grad(g, x))
