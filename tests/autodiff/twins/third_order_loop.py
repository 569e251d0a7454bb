"""PyTorch twin of tests/autodiff/third_order_loop.dlm."""
from adref import *


def f(x):
    s = x
    for i in range(5):
        s = torch.sin(s * x) + s * 0.5
    return s


def nested(x):
    s = x
    for i in range(3):
        for j in range(2):
            s = torch.tanh(s * x) + 0.2
    return s


def third(fn, v):
    x = torch.tensor(v, requires_grad=True)
    g, = torch.autograd.grad(fn(x), x, create_graph=True)
    h, = torch.autograd.grad(g, x, create_graph=True)
    k, = torch.autograd.grad(h, x)
    return k


out(third(f, 0.7))
out(third(nested, 0.6))
