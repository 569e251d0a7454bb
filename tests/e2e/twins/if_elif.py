import numpy as np
from dlmref import dprint


def classify(x):
    s = x.sum()
    return 2 if s > 10.0 else 1 if s > 0.0 else 0


def clamp_scale(x, limit):
    m = x.max()
    if m > limit:
        return (x * np.float32(limit / m)).astype(np.float32), "scaled"
    return x, "kept"


a = np.array([1.0, 2.0, 3.0], np.float32)
b = np.array([-4.0, 1.0, 2.5], np.float32)
c = np.array([5.0, 6.0, 7.5], np.float32)
dprint(classify(a), classify(b), classify(c))
for t in (a, b, c):
    y, note = clamp_scale(t, 4.0)
    dprint(note, y)
n = 7
if n % 2 == 0:
    dprint("even")
elif n % 3 == 0:
    dprint("multiple of three")
else:
    dprint("odd and large", n) if n > 5 else dprint("odd and small", n)
