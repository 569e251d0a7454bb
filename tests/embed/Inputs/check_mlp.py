"""Checks what tests/embed's C, C++ and Python programs printed for Inputs/mlp.dlm against
PyTorch: the same data (sin(i * 0.37 + salt) / 2), the same model, autograd for the gradients.

Usage: check_mlp.py OUTPUT [NAME...]   (lines `NAME dtype [shape] values...`; others are
ignored). Every result below must be printed, or with NAMEs, exactly those.
"""
import re
import sys

import numpy as np
import torch

IN, HIDDEN, OUT = 4, 8, 3


def data(n, salt):
    return torch.tensor((np.sin(np.arange(n) * 0.37 + salt).astype(np.float32) * np.float32(0.5)))


w1 = data(IN * HIDDEN, 1.0).reshape(IN, HIDDEN)
b1 = data(HIDDEN, 2.0)
w2 = data(HIDDEN * OUT, 3.0).reshape(HIDDEN, OUT)
b2 = data(OUT, 4.0)
x3 = data(3 * IN, 5.0).reshape(3, IN)
x5 = data(5 * IN, 6.0).reshape(5, IN)
y3 = torch.tensor([2, 0, 1])
v = data(6, 7.0)


def predict(w1, b1, w2, b2, x):
    return torch.relu(x @ w1 + b1) @ w2 + b2


def loss(params, x, y):
    return torch.nn.functional.cross_entropy(predict(*params, x), y)


def grads():
    params = [t.clone().requires_grad_() for t in (w1, b1, w2, b2)]
    value = loss(params, x3, y3)
    value.backward()
    return value.detach(), [p.grad for p in params]


value, g = grads()
expected = {
    "predict3": predict(w1, b1, w2, b2, x3),
    "predict3strided": predict(w1, b1, w2, b2, x3),
    "predict3again": predict(w1, b1, w2, b2, x3),
    "predict5": predict(w1, b1, w2, b2, x5),
    "loss": value,
    "value_and_grad.0": value,
    "step.1": value,
    "transposed": x3.T,
    "stats.0": -(v.sum() * 2.0),
}
for i in range(4):
    expected[f"grad.{i}"] = g[i]
    expected[f"value_and_grad.1.{i}"] = g[i]
    expected[f"step.0.{i}"] = (w1, b1, w2, b2)[i] - 0.5 * g[i]
if len(sys.argv) > 2:
    expected = {name: expected[name] for name in sys.argv[2:]}
seen = set()
failed = False
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) (f32|f64|i32|i64) \[([0-9, ]*)\](.*)", line)
    if not m:
        continue
    name, shape = m.group(1), [int(d) for d in m.group(3).split(",") if d.strip()]
    got = np.array([float(t) for t in m.group(4).split()], dtype=np.float64).reshape(shape)
    if name not in expected:
        continue
    want = expected[name].detach().numpy().astype(np.float64)
    seen.add(name)
    if want.shape != got.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-6):
        failed = True
        print(f"{name}: got {got.tolist()}, PyTorch gives {want.tolist()}")
missing = sorted(set(expected) - seen)
if missing:
    failed = True
    print("not printed:", ", ".join(missing))
if failed:
    sys.exit(1)
print(f"{len(seen)} results agree with PyTorch")
