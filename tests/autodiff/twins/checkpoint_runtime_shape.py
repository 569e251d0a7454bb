"""PyTorch twin of tests/autodiff/checkpoint-runtime-shape.dlm (no checkpoint: same gradients)."""
from adref import *


def add_sum(a, x):
    return a + x.sum()


def brief(w, xs):
    a = torch.zeros(1, 3, dtype=torch.float32) * w
    for j in range(2):
        a = add_sum(a, xs[j:j + 1])
    return a.sum()


def step(a, x):
    return torch.tanh(a * x.sum()) + a * (1.0 + (x * x).sum())


def rows(w, xs):
    a = torch.ones(1, 3) * w
    for j in range(3):
        a = step(a, xs[j:j + 1])
    return (a * a).sum()


def two_calls(w, xs):
    a = torch.ones(1, 3) * w
    for j in range(2):
        a = step(a, xs[j:j + 1])
        a = step(a * w, xs[j:j + 2])
    return (a * a).sum()


def inner(a, x):
    return step(a, x) * 0.5 + torch.sin(a)


def nested(w, xs):
    a = torch.ones(1, 3) * w
    for j in range(2):
        a = inner(a, xs[j:j + 2])
    return (a * a).sum() + (w * w).sum()


def loops(w, xs):
    a = torch.ones(1, 3) * w
    for i in range(3):
        for j in range(i + 1):
            a = step(a, xs[i - j:i - j + 1])
    return a.sum()


def with_if(w, xs, n):
    a = torch.ones(1, 3) * w
    if float(w.sum()) > 0.0:
        a = step(a, xs[0:n])
    else:
        a = a * w
    return (a * a).sum()


w = t([0.3, -0.2, 0.5])
minus_w = t([-0.3, 0.2, -0.5])
xs = c([[0.1, -0.2, 0.3], [0.05, 0.2, -0.1], [-0.3, 0.1, 0.2]])
one = torch.ones(1, dtype=torch.float32, requires_grad=True)
out(torch.autograd.grad(brief(one, torch.ones(2, 3, dtype=torch.float32)), one))
out(grad(lambda w: rows(w, xs), w))
out(grad(lambda w: two_calls(w, xs), w))
out(grad(lambda w: nested(w, xs), w))
out(grad(lambda w: loops(w, xs), w))
for n in range(1, 3):
    out(grad(lambda w: with_if(w, xs, n), w))
    out(grad(lambda w: with_if(w, xs, n), minus_w))
