"""Helpers for the PyTorch twins of tests/autodiff: f64 tensors and torch.autograd.grad.

`out(*values)` prints one line of numbers (tensors flattened) for check.py to compare with
what the dlm program prints; `t(list)` makes an f64 tensor that requires grad from values read
as f32 first, as dlm's `tensor([...]).astype(f64)` does (a tensor literal is f32).
"""
import torch

torch.set_default_dtype(torch.float64)


def t(values):
    return torch.tensor(values, dtype=torch.float32).double().requires_grad_(True)


def c(values):
    """A constant (no gradient) read like t()."""
    return torch.tensor(values, dtype=torch.float32).double()


def grad(f, *args, create_graph=False):
    """Gradients of f(*args) with respect to every argument (a tuple, like argnums=(0, 1, ...))."""
    y = f(*args)
    return torch.autograd.grad(y, args, create_graph=create_graph, allow_unused=True)


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [x for e in v for x in _flat(e)]
    if isinstance(v, torch.Tensor):
        return [float(x) for x in v.detach().reshape(-1)]
    return [float(v)]


def out(*values):
    print(" ".join(repr(x) for v in values for x in _flat(v)))
