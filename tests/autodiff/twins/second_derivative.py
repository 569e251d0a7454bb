"""PyTorch twin of tests/autodiff/second_derivative.dlm."""
from adref import *


def cube(x):
    return x * x * x + torch.sin(x)


def looped(x):
    y = x
    for i in range(4):
        y = torch.sin(y) * x + 0.1
    return y


def nth(f, x, n):
    y = f(x)
    for _ in range(n):
        y, = torch.autograd.grad(y, x, create_graph=True)
    return y


x = t(0.7)
out(nth(cube, x, 2))
out(nth(looped, x, 2))
out(nth(cube, x, 3))
