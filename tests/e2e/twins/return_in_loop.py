import numpy as np

from dlmref import dprint


def first_above(x, limit):
    for i, v in enumerate(x):
        if v > limit:
            return i
    return -1


def count_until(n, stop):
    c = 0
    while c < n:
        c += 1
        if c == stop:
            return c * 100
    return c


def pair_product(x, target):
    """The product of the first pair (i < j) whose sum passes target, and its gradient."""
    g = np.zeros_like(x)
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            if x[i] + x[j] > target:
                g[i], g[j] = x[j], x[i]
                return x[i] * x[j], g
    return np.float32(0.0), g


v = [0.5, 1.5, 2.5, 3.5]
dprint(first_above(v, 2.0), first_above(v, 9.0))
dprint(count_until(10, 4), count_until(3, 7))
v32 = np.array(v, dtype=np.float32)
dprint(pair_product(v32, 4.0)[0], pair_product(v32, 9.0)[0], pair_product(v32, 4.0)[1])
