"""PyTorch twin of tests/autodiff/rnn.dlm."""
from adref import *
wx = t([[0.1, 0.2, -0.1], [0.3, -0.2, 0.05]])
wh = t([[0.5, -0.1, 0.2], [0.0, 0.3, -0.4], [0.1, 0.1, 0.1]])
b = t([0.01, -0.02, 0.03])
xs = c([[1.0, 0.0], [0.5, -0.5], [0.0, 1.0], [-1.0, 0.3]])
target = c([0.2, -0.1, 0.4])
h = torch.zeros(3)
for i in range(4):
    h = torch.tanh(xs[i] @ wx + h @ wh + b)
g = torch.autograd.grad(((h - target) ** 2).mean(), (wx, wh, b))
out(g[0])
out(g[1])
out(g[2])
