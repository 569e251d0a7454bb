"""PyTorch twin of tests/autodiff/while_counter_data.dlm."""
from adref import *
def f(w, x):
    y = x
    while torch.linalg.norm(y) < 20.0:
        y = w @ y + x
    return y.sum()
out(grad(f, t([[1.1, 0.2], [-0.3, 0.9]]), t([1.0, 0.5])))
