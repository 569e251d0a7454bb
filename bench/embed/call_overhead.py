"""The cost of one call of a tiny function from Python: dlm (the module dlm, build/python) beside
a JAX jit function (when jax is installed), a TorchScript module and PyTorch eager on the same
1-element add, and numpy's own add as the floor. CPU time (time.process_time) per call, best of
5 rounds after a warm-up call: on a loaded machine wall time is noise.
Usage: PYTHONPATH=build/python call_overhead.py TINY.dlm [N]   (any CPython 3.11 with numpy and
torch: /usr/bin/python3, or bench/peers' venv, which has jax and torch 2)
"""
import os
import platform
import sys
import time

import numpy as np
import torch

import dlm

path = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
torch.set_num_threads(1)


def best_ns(f, *args):
    f(*args)
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(n // 5):
            f(*args)
        best = min(best, (time.process_time() - start) / (n // 5) * 1e9)
    return best


x = np.array([1.5], dtype=np.float32)
y = np.array([2.25], dtype=np.float32)
m = dlm.load(path, num_threads=1)
tx, ty = torch.from_numpy(x), torch.from_numpy(y)


class Add(torch.nn.Module):
    def forward(self, a, b):
        return a + b


scripted = torch.jit.script(Add())
print(f"python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__}, "
      f"load average {os.getloadavg()[0]:.1f}")
rows = [
    ("dlm from Python, numpy in and out (jit)", best_ns(m.add, x, y)),
    ("dlm from Python, torch tensors in (__dlpack__)", best_ns(m.add, tx, ty)),
    ("TorchScript module, torch tensors", best_ns(scripted, tx, ty)),
    ("PyTorch eager a + b", best_ns(torch.add, tx, ty)),
    ("numpy a + b", best_ns(np.add, x, y)),
]
try:
    import jax

    jax.config.update("jax_platforms", "cpu")
    jitted = jax.jit(lambda a, b: a + b)
    jx, jy = jax.device_put(x), jax.device_put(y)
    print(f"jax {jax.__version__}")
    rows += [
        ("JAX jit, jax arrays in, block_until_ready",
         best_ns(lambda a, b: jitted(a, b).block_until_ready(), jx, jy)),
        ("JAX jit, numpy in and out (np.asarray)", best_ns(lambda a, b: np.asarray(jitted(a, b)), x, y)),
    ]
except ImportError:
    print("jax: not installed in this Python")
for name, ns in rows:
    print(f"{name}: {ns:.0f} ns CPU per call")
