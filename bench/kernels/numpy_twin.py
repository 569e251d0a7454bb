"""numpy (and, for conv2d, PyTorch) twin of bench/kernels/KernelBench.cpp: same shapes, f32.

Prints one JSON object {benchmark name: CPU seconds per iteration} (process CPU time, like
Google Benchmark's cpu_time when everything runs on one thread), names as Google Benchmark
spells them (BM_Matmul/128/784/256/real_time, ...). Thread counts come from the environment
(compare.py sets OPENBLAS_NUM_THREADS=1).
"""
import json
import os
import sys
import time
import timeit

import numpy as np


def per_iter(fn, min_time=0.3):
    n = 1
    while True:
        t = timeit.Timer(fn, timer=time.process_time).timeit(number=n)
        if t >= min_time:
            return t / n
        n *= 2


def main():
    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    out = {}
    for m, k, n in [(128, 784, 256), (128, 256, 10), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048)]:
        a, b = f32(m, k), f32(k, n)
        out["BM_Matmul/%d/%d/%d/real_time" % (m, k, n)] = per_iter(lambda: np.matmul(a, b))
    for n in (1 << 16, 1 << 22):
        a, b, o = f32(n), f32(n), np.empty(n, np.float32)
        out["BM_Memcpy/%d/real_time" % n] = per_iter(lambda: np.copyto(o, a))
        out["BM_Add/%d/real_time" % n] = per_iter(lambda: np.add(a, b))
        out["BM_Mul/%d/real_time" % n] = per_iter(lambda: np.multiply(a, b))
        out["BM_Tanh/%d/real_time" % n] = per_iter(lambda: np.tanh(a))

    def softmax(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    for r, c in [(128, 10), (256, 1000)]:
        x = f32(r, c)
        out["BM_Softmax/%d/%d/real_time" % (r, c)] = per_iter(lambda: softmax(x))
    try:
        import torch
        torch.set_num_threads(int(os.environ.get("OPENBLAS_NUM_THREADS", "2")))
        for n, c, hw, o in [(32, 1, 28, 8), (32, 8, 14, 16)]:
            x, w = torch.from_numpy(f32(n, c, hw, hw)), torch.from_numpy(f32(o, c, 3, 3))
            out["BM_Conv2d/%d/%d/%d/%d/real_time" % (n, c, hw, o)] = per_iter(
                lambda: torch.nn.functional.conv2d(x, w, padding=1))
    except ImportError:
        pass
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
