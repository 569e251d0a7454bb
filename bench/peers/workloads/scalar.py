"""Scalar chains: 1000 dependent adds per iteration, the pure per-operation overhead.

Formulations:
  tensor1: a 1-element tensor, `x = x + 1.0` (dlm `zeros(1)`; jnp.zeros(1); torch.zeros(1);
           tf.zeros([1]))
  float:   a scalar that is not a 1-element tensor: dlm's language float (f64); PyTorch eager a
           Python float (what a user's plain arithmetic is); JAX, TF and torch.compile a 0-d f32
           tensor (a Python float inside jit or tf.function is a trace-time constant, so the
           1000 adds would be folded away or run once while tracing)
JAX: lax.fori_loop over 1000 adds inside jit; TF: `for i in tf.range(1000)` in a tf.function;
torch.compile: the Python loop of 1000 adds, traced. The gate: the value after 2 iterations (2000).
"""
import os

import numpy as np

from . import common

ADDS = 1000


def cases(selection):
    return [common.Case("scalar", "1000 adds", form, {"form": form}, 1000, rtol=0, atol=0,
                        unit=("ns/add", ADDS)) for form in ("tensor1", "float")]


def write_inputs(case, d):
    common.write_safetensors(os.path.join(d, "init.safetensors"), [np.zeros(1, np.float32)])
    common.write_safetensors(os.path.join(d, "data.safetensors"), [np.zeros(1, np.float32)])


def dlm_source(case, iters):
    start = "zeros(1)" if case.cfg["form"] == "tensor1" else "0.0"
    return ("# scalar chain, %s: %d dependent adds per iteration (bench/peers/workloads/scalar.py)\n"
            "x = %s\nfor r in range(%d):\n    for i in range(%d):\n        x = x + 1.0\nprint(x)\n"
            % (case.cfg["form"], ADDS, start, iters, ADDS))


def _runner(step, x, sync=lambda s: None, to_float=float):
    return common.Runner(lambda s: step(s), lambda s: s, x, [], sync=sync, to_float=to_float)


def build(side, case, d):
    one = case.cfg["form"] == "tensor1"
    fw = common.FRAMEWORK[side]
    if fw == "jax":
        import jax
        import jax.numpy as jnp
        step = jax.jit(lambda x: jax.lax.fori_loop(0, ADDS, lambda i, x: x + 1.0, x))
        x = jnp.zeros(1) if one else jnp.zeros(())
        return _runner(step, x, sync=jax.block_until_ready, to_float=lambda v: float(v.reshape(-1)[0]))
    if fw == "tf":
        import tensorflow as tf

        @tf.function
        def step(x):
            for _ in tf.range(ADDS):
                x = x + 1.0
            return x
        x = tf.zeros([1]) if one else tf.zeros([])
        return _runner(step, x, to_float=lambda v: float(tf.reshape(v, [-1])[0].numpy()))
    import torch

    def adds(x):
        for _ in range(ADDS):
            x = x + 1.0
        return x
    if side == "torch_eager":
        x = torch.zeros(1) if one else 0.0
        with torch.no_grad():
            return _runner(adds, x, to_float=lambda v: float(v.reshape(-1)[0]) if one else v)
    step = torch.compile(adds)
    return _runner(step, torch.zeros(1) if one else torch.zeros(()), to_float=lambda v: float(v.reshape(-1)[0]))
