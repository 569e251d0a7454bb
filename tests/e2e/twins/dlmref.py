"""Reference helpers for the twin scripts of tests/e2e.

Each tests/e2e/NAME.dlm has a twin twins/NAME.py that computes the same thing with NumPy and
prints it the way dlm's `print` does (runtime/Print.h): Python's repr for int/float/bool and
strings as is, tensors as "tensor(" + numpy.array2string(a, separator=', ', prefix='tensor(')
+ ", dtype=..." (unless f32) + ")". `Rng` reproduces dlm's random stream (runtime/Random.h:
Philox 4x32-10 keyed by the seed; rand uses the top 24 bits (f32) or all 32 (f64) of a word;
randn is Box-Muller on word pairs, computed in double), so programs that call seed(n) and
randn(...) have computed, not pasted, references.
"""
import math

import numpy as np

DTYPE_NAMES = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.int32): "i32",
               np.dtype(np.int64): "i64", np.dtype(np.bool_): "bool"}


def fmt(v):
    """A language scalar (Python bool/int/float) prints plainly; NumPy values are tensors."""
    if isinstance(v, str):
        return v
    if isinstance(v, (np.ndarray, np.generic)):
        a = np.asarray(v)
        s = "tensor(" + np.array2string(a, separator=", ", prefix="tensor(")
        name = DTYPE_NAMES[a.dtype]
        if name != "f32":
            s += ", dtype=" + name
        return s + ")"
    return repr(v)


def dprint(*values):
    print(" ".join(fmt(v) for v in values))


M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox4x32(counter, key):
    c0, c1, c2, c3 = counter & MASK, (counter >> 32) & MASK, 0, 0
    k0, k1 = key & MASK, (key >> 32) & MASK
    for _ in range(10):
        p0, p1 = M0 * c0, M1 * c2
        hi0, lo0 = (p0 >> 32) & MASK, p0 & MASK
        hi1, lo1 = (p1 >> 32) & MASK, p1 & MASK
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
    return (c0, c1, c2, c3)


class Rng:
    """dlm's process-wide stream: seed(s) restarts it; each call reserves ceil(n/4) counters."""

    def __init__(self, seed=0):
        self.seed(seed)

    def seed(self, s):
        self.key, self.offset = s, 0

    def _reserve(self, n):
        start = self.offset
        self.offset += (n + 3) // 4
        return start

    def randperm(self, n):
        """randperm(n): Fisher-Yates from the top, one stream word per swap (i64)."""
        perm = np.arange(n, dtype=np.int64)
        if n > 1:
            start = self._reserve(n - 1)
            for k, i in enumerate(range(n - 1, 0, -1)):
                j = (philox4x32(start + k // 4, self.key)[k % 4] * (i + 1)) >> 32
                perm[i], perm[j] = perm[j], perm[i]
        return perm

    def rand(self, *shape, dtype=np.float32):
        n = int(np.prod(shape)) if shape else 1
        start = self._reserve(n)
        out = np.empty(n, dtype=dtype)
        for i in range(n):
            w = philox4x32(start + i // 4, self.key)[i % 4]
            out[i] = (w >> 8) * (1.0 / 16777216.0) if dtype == np.float32 else w * (1.0 / 4294967296.0)
        return out.reshape(shape)

    def randn(self, *shape, dtype=np.float32):
        n = int(np.prod(shape)) if shape else 1
        start = self._reserve(n)
        out = np.empty(n, dtype=dtype)
        for c in range((n + 3) // 4):
            w = philox4x32(start + c, self.key)
            for h in range(2):
                u1 = (w[2 * h] + 1.0) * (1.0 / 4294967296.0)
                u2 = w[2 * h + 1] * (1.0 / 4294967296.0)
                rad = math.sqrt(-2.0 * math.log(u1))
                theta = 2.0 * math.pi * u2
                i = c * 4 + 2 * h
                if i < n:
                    out[i] = rad * math.cos(theta)
                if i + 1 < n:
                    out[i + 1] = rad * math.sin(theta)
        return out.reshape(shape)
