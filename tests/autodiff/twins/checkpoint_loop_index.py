"""PyTorch twin of tests/autodiff/checkpoint-loop-index.dlm (no checkpoint: same gradients)."""
from adref import *


def scaled(w, h, i):
    return torch.sin(w * h) * (i + 1) + h


def for_index(w, x):
    h = x
    for i in range(4):
        h = scaled(w, h, i)
    return (h * h).sum()


def while_counter(w, x):
    h = x
    i = 0
    while float((h * h).sum()) < 50.0 and i < 6:
        h = scaled(w, h, i) * 1.5
        i += 1
    return h.sum()


def nested(w, x):
    h = x
    for i in range(3):
        for j in range(i + 1):
            h = scaled(w, h, i - j)
    return (h * h).sum()


def slice_index(ws, x):
    h = x
    for i in range(3):
        h = h + torch.tanh(h @ ws[i])
    return (h * h).sum()


def trip_count(w, x):
    h = x
    for i in range(3):
        for j in range(i + 1):
            h = torch.sin(w * h) + h if j % 2 == 0 else h * w
    return (h * h).sum()


def checkpoint_in_checkpoint(w, x):
    h = x
    for i in range(3):
        for j in range(i):
            h = scaled(w, h, j)
    return (h * h).sum()


def gradient_sum(w, x):
    gw, gx = torch.autograd.grad(for_index(w, x), (w, x), create_graph=True)
    return gw.sum()


w = t([0.3, -0.2])
x = t([1.0, 0.5])
ws = t([[[0.5, -0.3], [0.2, 0.4]], [[-0.1, 0.6], [0.3, -0.2]], [[0.2, 0.1], [-0.4, 0.3]]])
xs = t([[1.0, 0.5], [-0.5, 0.25]])
out(grad(for_index, w, x))
out(grad(while_counter, w, x))
out(grad(nested, w, x))
out(grad(slice_index, ws, xs))
out(grad(trip_count, w, x))
out(grad(checkpoint_in_checkpoint, w, x))
out(grad(gradient_sum, w, x))
