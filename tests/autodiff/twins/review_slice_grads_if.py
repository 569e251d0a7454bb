"""PyTorch twin of tests/autodiff/review-slice-grads-if.dlm."""
from adref import *


def cell(w, xs, n):
    h = torch.zeros(1, 3)
    c = torch.zeros(1, 3)
    for t in range(n):
        z = xs[t] @ w + h @ w[0:3, :] * 0.5
        a = z[:, 0:3]
        b = z[:, 3:6]
        if t % 2 == 0:
            h = torch.tanh(a) * h + torch.sigmoid(b)
        else:
            h = torch.sigmoid(a) + torch.tanh(b) * h
        c = c + h * a
    return (c * c).sum()


def nested(w, xs):
    h = torch.zeros(1, 3)
    for t in range(3):
        for u in range(2):
            z = (xs[t] + h[:, 0:2] * 0.5) @ w
            if u == 1:
                h = torch.tanh(z[:, 0:3]) * torch.sigmoid(z[:, 3:6])
            else:
                h = h + torch.sigmoid(z[:, 0:3]) - torch.tanh(z[:, 3:6])
    return h.sum()


xs = c([[[0.5, -1.0, 0.25]], [[1.5, 0.75, -0.5]], [[-0.25, 0.5, 1.0]], [[0.8, -0.3, 0.1]]])
w = t([[0.1, -0.2, 0.3, 0.4, -0.5, 0.6], [-0.7, 0.8, 0.9, -0.1, 0.2, -0.3],
       [0.35, 0.15, -0.45, 0.25, 0.05, -0.6]])
out(grad(lambda w: cell(w, xs, 4), w))
out(grad(lambda w: cell(w, xs, 1), w))
w2 = t([[0.1, -0.2, 0.3, 0.4, -0.5, 0.6], [-0.7, 0.8, 0.9, -0.1, 0.2, -0.3]])
out(grad(lambda w: nested(w, xs[:, :, 0:2]), w2))
