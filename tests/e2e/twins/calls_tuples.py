import numpy as np
from dlmref import dprint


def stats(x):
    return x.mean(), x.max(), x.min()


def affine(x, scale=2.0, shift=1.0):
    return (x * np.float32(scale) + np.float32(shift)).astype(np.float32)


x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
m, hi, lo = stats(x)
dprint(m, hi, lo)
dprint(affine(x), affine(x, shift=-1.0), affine(x, 0.5, 0.0))
dprint(4, 3)
dprint(7, affine(x).sum())
dprint(1.5 + 2.5 + 4.0)
acc = 0
for i in range(4):
    a, b = acc, i
    acc = a + b * 2
dprint(acc)
