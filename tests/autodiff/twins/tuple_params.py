"""PyTorch twin of tests/autodiff/tuple_params.dlm."""
from adref import *
def mlp(w1, b1, w2, b2, x):
    h = torch.relu(x @ w1 + b1)
    return torch.log_softmax(h @ w2 + b2, 1)[:, 0].sum()
ps = [t([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]), t([0.01, 0.02, -0.03]), t([[0.7, -0.1], [0.2, 0.3], [-0.5, 0.4]]), t([0.05, -0.05])]
x = c([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]])
g = torch.autograd.grad(mlp(*ps, x), ps)
out(g[0], g[1])
out(g[2], g[3])
