"""PyTorch twin of tests/autodiff/loop_invariant.dlm."""
from adref import *
def f(w, h):
    for i in range(5):
        h = torch.tanh(w @ h)
    return h.sum()
out(grad(f, t([[0.5, -0.3], [0.2, 0.8]]), t([1.0, -1.0])))
