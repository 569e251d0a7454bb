"""PyTorch twin of tests/autodiff/if-in-loop-runtime-shape.dlm (the last line: a second derivative)."""
from adref import *


def brief(w, xs):
    a = torch.zeros(1, 3, dtype=torch.float32) * w
    for j in range(4):
        if j % 2 == 0:
            a = a * xs[j:j + 1]
    return a.sum()


def then_side(w, xs):
    a = torch.ones(1, 3) * w
    for j in range(4):
        if j % 2 == 0:
            a = torch.tanh(a * xs[j:j + 1])
    return (a * a).sum()


def else_side(w, xs):
    a = torch.ones(1, 3) * w
    for j in range(4):
        if j % 3 == 0:
            a = a + w
        else:
            a = torch.sin(a * xs[j:j + 1]) * w
    return (a * a).sum()


def two_saved(w, xs):
    a = torch.ones(1, 3) * w
    for j in range(3):
        if float(a.sum()) > 0.0:
            x = xs[j:j + 1]
            a = torch.tanh(a * x) * torch.exp(x * w)
        else:
            a = a * xs[j:j + 1] + a
    return (a * a).sum()


def static_shape(w, xs):
    a = torch.ones(3) * w
    for j in range(4):
        if j % 2 == 1:
            a = torch.tanh(a * xs[j])
    return (a * a).sum()


def nested_if(w, xs):
    a = torch.ones(1, 3) * w
    for j in range(4):
        if j % 2 == 0:
            if j > 1:
                a = torch.tanh(a * xs[j:j + 1])
            else:
                a = a * w
    return (a * a).sum()


def loop_in_if(w, xs):
    a = torch.ones(1, 3) * w
    for j in range(3):
        if j != 1:
            for k in range(j + 1):
                a = torch.sin(a * xs[k:k + 1])
    return (a * a).sum()


w = t([0.3, -0.2, 0.5])
minus_w = t([-0.3, 0.2, -0.5])
xs = c([[0.1, -0.2, 0.3], [0.05, 0.2, -0.1], [-0.3, 0.1, 0.2], [0.4, 0.25, -0.15]])
one = torch.ones(1, dtype=torch.float32, requires_grad=True)
out(torch.autograd.grad(brief(one, torch.ones(4, 3, dtype=torch.float32)), one))
for f in (then_side, else_side, two_saved):
    out(grad(lambda w: f(w, xs), w))
out(grad(lambda w: two_saved(w, xs), minus_w))
for f in (static_shape, nested_if, loop_in_if):
    out(grad(lambda w: f(w, xs), w))
g, = torch.autograd.grad(then_side(w, xs), w, create_graph=True)
out(torch.autograd.grad((g * w).sum(), w))
