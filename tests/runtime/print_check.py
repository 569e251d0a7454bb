"""Compares dlm's tensor printing with NumPy's on many generated arrays.

Usage: print_check.py PATH/TO/dlm_print_tool
Expected text for each case is "tensor(" + numpy.array2string(a, separator=', ',
prefix='tensor(') + ", dtype=..." (unless f32) + ")", and Python's repr for scalars.
Prints the first mismatches and exits 1 if any case differs.
"""
import subprocess
import sys

import numpy as np

DT = {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.int64: "i64", np.bool_: "bool"}


def cases():
    rng = np.random.default_rng(1234)
    shapes = [(), (1,), (5,), (3, 4), (2, 3, 4), (0,), (2, 0), (1, 1, 1), (7, 1), (40,),
              (12, 9), (2, 2, 2, 2), (1001,), (30, 40), (4, 300), (3, 5, 70), (11, 11, 11)]
    scales = [1.0, 1e-3, 1e-5, 1e3, 1e7, 1e9, 1e-12, 1e20]
    for shape in shapes:
        for dt in (np.float32, np.float64):
            for scale in scales:
                yield (rng.standard_normal(shape) * scale).astype(dt)
            yield rng.integers(-5, 6, shape).astype(dt)
            yield (rng.integers(-5, 6, shape) / 4).astype(dt)
            yield np.round(rng.standard_normal(shape), 2).astype(dt)
        for dt in (np.int32, np.int64):
            yield rng.integers(-1000, 1000, shape).astype(dt)
            yield rng.integers(0, 10, shape).astype(dt)
        yield rng.integers(0, 2, shape).astype(np.bool_)
    specials = [
        [np.nan, 1.0, -np.inf], [np.inf], [np.nan], [-0.0, 0.0], [0.1, 0.2, 0.3],
        [1e8, 1.0], [1e-4, 1.0], [9.9999e-5, 1.0], [1.0, 1000.0], [1.0, 1001.0],
        [123456.789, 0.5], [1 / 3, 2 / 3], [1e16, 1], [np.nan, 1e-10, 3.0],
        [0.0, 0.0], [-1.5, 2.25, 1e5], [99999999.0], [100000000.0], [3.14159265358979],
        [1e300, 1e-300], [-np.inf, np.nan, 0.5], [2.5e-5, np.inf],
    ]
    for s in specials:
        yield np.array(s, dtype=np.float64)
        with np.errstate(over="ignore"):
            yield np.array(s, dtype=np.float32)
    yield np.arange(2000, dtype=np.float32).reshape(40, 50)
    yield rng.integers(0, 2, (3, 1000)).astype(np.bool_)
    yield np.full((2, 3), np.nan)
    yield np.array(np.nan)
    yield np.array(-np.inf, dtype=np.float32)
    yield np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max], dtype=np.int64)
    yield np.array([-0.0, 1e-7, 5.0], dtype=np.float64)
    yield (rng.standard_normal((2, 2000)) * 1e-6).astype(np.float32)
    yield np.linspace(-1, 1, 77).reshape(7, 11)
    yield np.array([1e-300, 1e300, -1e-300])
    yield np.array([123456789012.0, 0.5], dtype=np.float64)
    yield np.array([[[1.5]]], dtype=np.float64)
    yield np.zeros((3, 0, 2), dtype=np.float32)
    # Random mixtures: magnitudes spread over many decades, specials sprinkled in.
    for _ in range(300):
        shape = tuple(rng.integers(1, 6, rng.integers(1, 4)))
        dt = (np.float32, np.float64)[rng.integers(0, 2)]
        a = rng.standard_normal(shape) * 10.0 ** rng.integers(-9, 10, shape)
        a = np.where(rng.random(shape) < 0.1, rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0]), a)
        with np.errstate(over="ignore"):
            yield a.astype(dt)
        yield np.round(rng.standard_normal(shape) * 10.0 ** rng.integers(0, 6), rng.integers(0, 4)).astype(dt)
    yield np.arange(24, dtype=np.int64).reshape(2, 3, 4).transpose(2, 0, 1)
    yield np.array(True)
    yield np.array(0.5, dtype=np.float32)
    yield np.array(-7, dtype=np.int64)


def expected(a):
    s = "tensor(" + np.array2string(a, separator=", ", prefix="tensor(")
    if a.dtype != np.float32:
        s += ", dtype=" + DT[a.dtype.type]
    return s + ")"


def main():
    tool = sys.argv[1]
    arrays = list(cases())
    floats = [0.1, 1e-05, 3.0, 1e16, 1e15 + 0.5, 123456789.125, -0.0, 1.5e-7, 0.0001, 2.0 ** 70,
              float("inf"), float("nan"), 1 / 3, 5e-324, 1.7976931348623157e308]
    lines, want = [], []
    for a in arrays:
        c = np.ascontiguousarray(a)
        lines.append("%s %d %s" % (DT[a.dtype.type], a.ndim, " ".join(map(str, a.shape))))
        lines.append(c.tobytes().hex())
        want.append(expected(a))
    for f in floats:
        lines.append("pyfloat")
        lines.append(np.array(f, dtype=np.float64).tobytes().hex())
        want.append(repr(f))
    out = subprocess.run([tool], input="\n".join(lines) + "\n", capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stderr)
        return 1
    got = out.stdout.split("\n\x1e\n")[:-1]
    bad = [(w, g) for w, g in zip(want, got) if w != g]
    if len(got) != len(want):
        print("expected %d outputs, got %d" % (len(want), len(got)))
        return 1
    for w, g in bad[:5]:
        print("--- numpy:\n%s\n--- dlm:\n%s" % (w, g))
    print("%d of %d cases match" % (len(want) - len(bad), len(want)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
