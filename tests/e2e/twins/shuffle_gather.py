import numpy as np
from dlmref import Rng, dprint, philox4x32

rng = Rng(7)


def randperm(n):
    """dlm's randperm: Fisher-Yates from the top, one stream word per swap."""
    perm = np.arange(n, dtype=np.int64)
    if n > 1:
        start = rng._reserve(n - 1)
        for k, i in enumerate(range(n - 1, 0, -1)):
            w = philox4x32(start + k // 4, rng.key)[k % 4]
            j = (w * (i + 1)) >> 32
            perm[i], perm[j] = perm[j], perm[i]
    return perm


def cubes_grad(x, i):
    g = np.zeros_like(x)
    np.add.at(g, i, 3 * x[i] * x[i])
    return g


dprint(randperm(10))
x = rng.randn(6, 3)
i = np.array([4, 0, 4, 5])
dprint(x[i])
dprint(np.take(x, np.array([[2, 1], [0, 2]]), axis=1))
dprint(x[i] == x[i])
dprint(cubes_grad(x, i))
xd = rng.randn(5, 2)
dprint(cubes_grad(xd, np.array([1, 1, 3])))
v = rng.randn(6, 3)
hv = np.zeros_like(x)
np.add.at(hv, i, 6 * x[i] * v[i])
dprint(hv)
rows = np.arange(8, dtype=np.float32).reshape(4, 2)
labels = np.arange(4, dtype=np.int64) * 10
order = randperm(4)
dprint(rows[order], labels[order])
dprint(labels[randperm(4)])
