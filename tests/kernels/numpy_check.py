"""Runs CPU kernels on random inputs and compares them with numpy (float64 reference).

Usage: numpy_check.py PATH/TO/dlm_kernel_tool
Covers broadcasting elementwise ops, reductions over axes, matmul with broadcast batches,
softmax/log_softmax and conv2d-free shape ops, for f32 and f64, including empty and size-1
dimensions. Prints mismatches and exits 1 if any.
"""
import subprocess
import sys

import numpy as np

DT = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.int32): "i32",
      np.dtype(np.int64): "i64", np.dtype(np.bool_): "bool"}
NP = {v: k for k, v in DT.items()}


def lse(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    return np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m


def cases(rng):
    pairs = [((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1)), ((), (2, 2)), ((0, 3), (3,)),
             ((1,), (5,)), ((4, 1, 2), (3, 1)), ((6,), (6,))]
    binary = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
              "maximum": np.maximum, "minimum": np.minimum, "pow": np.power}
    for dt in (np.float32, np.float64):
        for name, f in binary.items():
            for sa, sb in pairs:
                a = rng.uniform(0.5, 2, sa).astype(dt)
                b = rng.uniform(0.5, 2, sb).astype(dt)
                yield name, {}, [a, b], f(a.astype(np.float64), b.astype(np.float64))
        x = rng.standard_normal((3, 4, 5)).astype(dt)
        for axes in [(0,), (1,), (2,), (0, 2), (1, 2), (0, 1, 2)]:
            for keep in (False, True):
                attrs = {"axes": axes, "keepdims": keep}
                x64 = x.astype(np.float64)
                yield "sum", attrs, [x], np.sum(x64, axis=axes, keepdims=keep)
                yield "mean", attrs, [x], np.mean(x64, axis=axes, keepdims=keep)
                yield "max", attrs, [x], np.max(x64, axis=axes, keepdims=keep)
                ref = lse(x64, axes)
                yield "logsumexp", attrs, [x], ref if keep else np.squeeze(ref, axis=axes)
        for sa, sb in [((5, 7), (7, 3)), ((2, 5, 7), (7, 3)), ((2, 1, 4, 3), (5, 3, 6)), ((7,), (7, 2)),
                       ((4, 0), (0, 3)), ((128, 784), (784, 256))]:
            a = rng.standard_normal(sa).astype(dt)
            b = rng.standard_normal(sb).astype(dt)
            yield "matmul", {}, [a, b], np.matmul(a.astype(np.float64), b.astype(np.float64))
        z = (rng.standard_normal((4, 6)) * 30).astype(dt)
        for axis in (0, 1):
            z64 = z.astype(np.float64)
            yield "softmax", {"axis": axis}, [z], np.exp(z64 - lse(z64, axis))
            yield "log_softmax", {"axis": axis}, [z], z64 - lse(z64, axis)
        y = rng.standard_normal((2, 3, 4)).astype(dt)
        yield "transpose", {"perm": (2, 0, 1)}, [y], np.transpose(y, (2, 0, 1)).astype(np.float64)
        yield "reshape", {"shape": (4, -1)}, [y], y.reshape(4, -1).astype(np.float64)
        yield "slice", {"begin": (1, 0, 3), "end": (2, 3, -5), "step": (1, 2, -1)}, [y], \
            y[1:2, 0:3:2, 3:-5:-1].astype(np.float64)
    w = rng.integers(-9, 9, (3, 4)).astype(np.int64)
    v = rng.integers(-9, 9, (4, 2)).astype(np.int64)
    yield "matmul", {}, [w, v], np.matmul(w, v)
    yield "floordiv", {}, [w, np.array(4, dtype=np.int64)], np.floor_divide(w, 4)
    yield "mod", {}, [w, np.array(-4, dtype=np.int64)], np.mod(w, -4)


def attr_text(attrs):
    out = []
    for k, v in attrs.items():
        if isinstance(v, bool):
            out.append("%s=%s" % (k, "true" if v else "false"))
        elif isinstance(v, tuple):
            out.append("%s=%s" % (k, ",".join(map(str, v)) + ("," if len(v) == 1 else "")))
        else:
            out.append("%s=%d" % (k, v))
    return " ".join(out)


def main():
    rng = np.random.default_rng(7)
    all_cases = list(cases(rng))
    lines = []
    for op, attrs, ins, _ in all_cases:
        lines.append("%s %s %d" % (op, attr_text(attrs), len(ins)))
        for a in ins:
            lines.append("%s %d %s" % (DT[a.dtype], a.ndim, " ".join(map(str, a.shape))))
            lines.append(np.ascontiguousarray(a).tobytes().hex())
    out = subprocess.run([sys.argv[1]], input="\n".join(lines) + "\n", capture_output=True, text=True)
    got = out.stdout.split("\n")
    bad = 0
    for i, (op, attrs, ins, want) in enumerate(all_cases):
        head, data = got[2 * i].split(" "), got[2 * i + 1]
        if head[0] != "ok":
            print("%s %s: %s" % (op, attrs, " ".join(head)))
            bad += 1
            continue
        shape = tuple(int(d) for d in head[3:])
        res = np.frombuffer(bytes.fromhex(data), dtype=NP[head[1]]).reshape(shape)
        f32 = any(a.dtype == np.float32 for a in ins)
        tol = 1e-4 if f32 else 1e-10
        if shape != np.shape(want) or not np.allclose(res.astype(np.float64), want, rtol=tol, atol=tol):
            print("MISMATCH %s %s shapes %s: got %s want %s" % (op, attrs, [a.shape for a in ins], res, want))
            bad += 1
    print("%d of %d kernel cases match numpy" % (len(all_cases) - bad, len(all_cases)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
