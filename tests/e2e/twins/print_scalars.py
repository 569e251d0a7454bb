import numpy as np
from dlmref import dprint

x = np.array([1.5, 2.25], np.float64)
s = x.sum()
dprint(s, float(s), 3.75)
n = np.array([1, 2, 3], np.int64).sum()
dprint(n, int(n), len(x))
b = s > 3.0
dprint(b, bool(b), True)
dprint(x.astype(np.float32).sum(), float(x.astype(np.float32).sum()))
dprint(np.int64(x.argmax()), x[1], x.astype(np.int64)[0])
tiny = np.array([1e-05], np.float64).sum()
dprint(tiny, float(tiny))
dprint(int(-2.7), int(2.7), float(3), bool(0.0), bool(-0.5), int(True), float(np.int32(7)))
dprint(s, float(s), "in a tuple")
dprint(s * 0.5, float(s) * 0.5)
acc = np.zeros(1, np.float64).sum()
for i in range(3):
    acc = acc + 1.0
dprint(acc, float(acc))
# metrics.rounded: (x as f64 * 10**digits + 0.5) // 1 / 10**digits, a float.
def rounded(v, digits=4):
    scale = 10.0 ** digits
    return float((np.float64(v) * scale + 0.5) // 1.0 / scale)
dprint(rounded(np.float32(0.88765)), rounded(s, digits=1))
w = np.array([1.0, 2.0], np.float32)
dprint(4.0 * w)
