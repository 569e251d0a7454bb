"""The cost of calling a compiled Python function: @dlm.jit beside jax.jit and a TorchScript
function (torch.jit.script) on the same two functions, a 1-element add (the call overhead
alone) and one LSTM step at batch 1, hidden 32 (overhead plus a little work); numpy's add as
the floor. CPU time (time.process_time) per call, best of 5 rounds after warm-up calls: on a
loaded machine wall time is noise. Needs jax and torch 2 (build/peers-venv, made by
bench/peers/setup.sh):
    PYTHONPATH=build/python build/peers-venv/bin/python bench/python/jit_overhead.py [N]
(docs/python.md "Call overhead" has a run's numbers.)
"""
import os
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import dlm  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 50000
torch.set_num_threads(1)
IN = HIDDEN = 32


def best_ns(f, *args):
    for _ in range(3):
        f(*args)
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(n // 5):
            f(*args)
        best = min(best, (time.process_time() - start) / (n // 5) * 1e9)
    return best


@dlm.jit
def dlm_add(a, b):
    return a + b


@dlm.jit
def dlm_lstm(wx, wh, b, x, h, c):
    z = x @ wx + h @ wh + b
    i, f, g, o = chunk(z, 4, axis=1)
    c = sigmoid(f) * c + sigmoid(i) * tanh(g)
    return sigmoid(o) * tanh(c), c


def jax_add(a, b):
    return a + b


def jax_lstm(wx, wh, b, x, h, c):
    i, f, g, o = jnp.split(x @ wx + h @ wh + b, 4, axis=1)
    c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    return jax.nn.sigmoid(o) * jnp.tanh(c), c


@torch.jit.script
def ts_add(a, b):
    return a + b


@torch.jit.script
def ts_lstm(wx, wh, b, x, h, c):
    i, f, g, o = (x @ wx + h @ wh + b).chunk(4, 1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c), c


def blocked(f):
    return lambda *args: jax.block_until_ready(f(*args))


rng = np.random.default_rng(0)
x1 = np.array([1.5], np.float32)
y1 = np.array([2.25], np.float32)
lstm = [rng.standard_normal(s).astype(np.float32) * 0.1
        for s in ((IN, 4 * HIDDEN), (HIDDEN, 4 * HIDDEN), (4 * HIDDEN,), (1, IN), (1, HIDDEN),
                  (1, HIDDEN))]
jadd, jlstm = blocked(jax.jit(jax_add)), blocked(jax.jit(jax_lstm))
tadd = [torch.from_numpy(a) for a in (x1, y1)]
tlstm = [torch.from_numpy(a) for a in lstm]
jax1 = [jnp.asarray(a) for a in (x1, y1)]
jaxl = [jnp.asarray(a) for a in lstm]
rows = [
    ("1-element add", "@dlm.jit, numpy in and out", best_ns(dlm_add, x1, y1)),
    ("1-element add", "@dlm.jit, torch tensors in (__dlpack__)", best_ns(dlm_add, *tadd)),
    ("1-element add", "its dlm function (no @dlm.jit wrapper)",
     best_ns(dlm_add._dlm_function(), x1, y1)),
    ("1-element add", "jax.jit, jax arrays in (block_until_ready)", best_ns(jadd, *jax1)),
    ("1-element add", "TorchScript function, torch tensors", best_ns(ts_add, *tadd)),
    ("1-element add", "numpy a + b (no compiled function)", best_ns(np.add, x1, y1)),
    ("LSTM step h32", "@dlm.jit, numpy in and out", best_ns(dlm_lstm, *lstm)),
    ("LSTM step h32", "jax.jit, jax arrays in (block_until_ready)", best_ns(jlstm, *jaxl)),
    ("LSTM step h32", "TorchScript function, torch tensors", best_ns(ts_lstm, *tlstm)),
]
for what, how, ns in rows:
    print(f"{what:14s} {how:44s} {ns / 1000:8.2f} us CPU per call")
