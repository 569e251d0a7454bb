"""What every workload family shares: the files the sides read, and one runner per peer.

A workload family is a module of this package with
    cases(selection)          -> [Case]: the configurations and formulations to measure
    write_inputs(case, dir)   the initial weights and data every side reads (numpy, seeded)
    dlm_source(case, iters)   the .dlm program: reads the inputs, runs `iters` training
                              iterations (its first top-level `for`), prints the loss
    build(side, case, dir)    -> Runner for side "jax", "torch_eager", "torch_compile" or "tf"

Every side reads the same files from `dir`: init.safetensors (the initial weights, tensors "0",
"1", ... in the order the program's `load(..., like=...)` takes them: docs/runtime.md
"Checkpoint format") and data.safetensors, so all sides start from the same numbers and the
correctness gate (peers.py) can compare their losses.
"""
import json
import os
import struct

import numpy as np

SIDES = ("dlm", "jax", "torch_compile", "tf", "torch_eager")
PEER_SIDES = SIDES[1:]
# torch.compile unrolls Python loops and compiles for minutes on this machine (the 1000 adds: 193 s
# under load), so the default selection compiles one or two formulations per family; --select
# all compiles every case.
WITHOUT_COMPILE = tuple(s for s in SIDES if s != "torch_compile")
FRAMEWORK = {"jax": "jax", "torch_eager": "torch", "torch_compile": "torch", "tf": "tf"}

_DTYPES = {np.dtype(np.float32): "F32", np.dtype(np.float64): "F64", np.dtype(np.int32): "I32",
           np.dtype(np.int64): "I64"}
_NUMPY = {v: k for k, v in _DTYPES.items()}


class Case:
    """One measured row: a family, a size (the configuration) and a formulation (how the program
    is written); the formulations of one family and size are compared with each other (cliffs).

    iters: training iterations per dlm timing run; gate_iters: iterations before the gate's
    loss; rtol/atol: the gate's tolerance on that loss against dlm's."""

    def __init__(self, family, size, form, cfg, iters, gate_iters=2, rtol=2e-4, atol=1e-5, sides=SIDES,
                 unit=None, module=None):
        self.family, self.size, self.form, self.cfg = family, size, form, dict(cfg)
        self.name = (size + " " + form).strip()
        self.module = module or family  # the workloads module that defines it
        self.iters, self.gate_iters = iters, gate_iters
        self.rtol, self.atol = rtol, atol
        self.sides = tuple(sides)
        self.unit = unit  # (label, divisor): a second unit, e.g. ("ns/add", 1000 adds per iteration)
        self.dir = None  # where the inputs are, once written
        self.key = family + " " + self.name

    def to_json(self):
        return {"family": self.family, "size": self.size, "form": self.form, "cfg": self.cfg, "iters": self.iters,
                "gate_iters": self.gate_iters, "rtol": self.rtol, "atol": self.atol,
                "sides": list(self.sides), "module": self.module, "dir": self.dir}

    @staticmethod
    def from_json(j):
        c = Case(j["family"], j["size"], j["form"], j["cfg"], j["iters"], j["gate_iters"], j["rtol"], j["atol"],
                 j["sides"], module=j["module"])
        c.dir = j["dir"]
        return c


def write_safetensors(path, arrays):
    """Tensors "0", "1", ... as dlm's save writes them (without the checksum, which load skips)."""
    header, offset = {}, 0
    blobs = []
    for i, a in enumerate(arrays):
        a = np.ascontiguousarray(a)
        raw = a.tobytes()
        header[str(i)] = {"dtype": _DTYPES[a.dtype], "shape": list(a.shape),
                          "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * ((8 - (8 + len(text)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    out = []
    for name in sorted(header, key=int):
        meta = header[name]
        a, b = meta["data_offsets"]
        out.append(np.frombuffer(raw[8 + n + a:8 + n + b], dtype=_NUMPY[meta["dtype"]])
                   .reshape(meta["shape"]).copy())
    return out


def read_inputs(d):
    return read_safetensors(os.path.join(d, "init.safetensors")), read_safetensors(
        os.path.join(d, "data.safetensors"))


def like(arrays):
    """The `like=` value of a dlm load of these arrays: zeros of the same shapes and dtypes, a
    tuple of them when there are several."""
    parts = []
    for a in arrays:
        dims = ", ".join(str(s) for s in a.shape)
        dtype = "" if a.dtype == np.float32 else ", dtype=" + _DTYPES[a.dtype].lower()
        parts.append("zeros(%s%s)" % (dims, dtype))
    return parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")"


def rng(seed=0):
    return np.random.default_rng(seed)


class Runner:
    """A side's compiled training iteration over a functional state.

    step_fn(state, *data) -> state; loss_fn(state, *data) -> a scalar; sync(state) waits for
    the state to be computed (JAX dispatches asynchronously)."""

    def __init__(self, step_fn, loss_fn, state, data, sync=lambda s: None, to_float=float):
        self.step_fn, self.loss_fn, self.init, self.data = step_fn, loss_fn, state, data
        self.state, self.sync_fn, self.to_float = state, sync, to_float

    def step(self):
        self.state = self.step_fn(self.state, *self.data)

    def sync(self):
        self.sync_fn(self.state)

    def loss(self):
        return self.to_float(self.loss_fn(self.state, *self.data))

    def reset(self):
        self.state = self.init


# --- one SGD training iteration per framework, from a loss over a list of parameters ----------

def jax_sgd(loss, params, data, lr):
    import jax

    @jax.jit
    def step(p, *d):
        g = jax.grad(loss)(p, *d)
        return [a - lr * b for a, b in zip(p, g)]

    import jax.numpy as jnp
    state = [jnp.asarray(a) for a in params]
    data = [jnp.asarray(a) for a in data]
    return Runner(step, jax.jit(loss), state, data, sync=lambda s: jax.block_until_ready(s))


def torch_sgd(loss, params, data, lr, compiled):
    import torch
    fn = torch.compile(loss) if compiled else loss

    def step(p, *d):
        p = [a.detach().requires_grad_(True) for a in p]
        g = torch.autograd.grad(fn(p, *d), p)
        with torch.no_grad():
            return [a - lr * b for a, b in zip(p, g)]

    def value(p, *d):
        with torch.no_grad():
            return fn(p, *d)

    return Runner(step, value, [torch.from_numpy(a) for a in params], [torch.from_numpy(a) for a in data])


def tf_sgd(loss, params, data, lr):
    import tensorflow as tf

    @tf.function
    def step(p, *d):
        with tf.GradientTape() as tape:
            tape.watch(p)
            value = loss(p, *d)
        g = tape.gradient(value, p)
        return [a - lr * b for a, b in zip(p, g)]

    return Runner(step, tf.function(loss), [tf.constant(a) for a in params], [tf.constant(a) for a in data],
                  to_float=lambda v: float(v.numpy()))


def sgd_runner(side, losses, params, data, lr):
    """The runner of `side` for the loss functions {framework: loss(params, *data)}."""
    fw = FRAMEWORK[side]
    if fw == "jax":
        return jax_sgd(losses["jax"], params, data, lr)
    if fw == "torch":
        return torch_sgd(losses["torch"], params, data, lr, compiled=side == "torch_compile")
    return tf_sgd(losses["tf"], params, data, lr)
