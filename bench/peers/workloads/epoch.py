"""`make run`'s epoch: examples/fashion_mnist_mlp.dlm, one epoch per iteration.

dlm runs the example itself with its `epochs = 8` set to the iteration count: each epoch
shuffles the 60 000 training images (data.shuffle), makes 468 Adam steps on batches of 128
(lr 0.002 in the first epoch) and measures the test accuracy on the 10 000 test images. The
peers start from the initial weights the example saves (fashion_mnist_mlp.init.safetensors,
written by dlm's gate run) and take the batches in the same order (the example's first-epoch
permutation, reproduced from dlm's Philox stream with tests/e2e/twins/dlmref.py outside the
timed epoch; the gather by it is timed); Adam is written out in JAX and TF, torch.optim.Adam in
PyTorch. The gate compares the test accuracy after one epoch (within 0.005).
"""
import gzip
import os
import re
import struct
import sys

import numpy as np

from . import common

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "..", "examples", "fashion_mnist_mlp.dlm")
DATA = os.environ.get("DLM_DATA", "/usr/share/datasets/fashion-mnist")
BATCH, LR, B1, B2, EPS = 128, 0.002, 0.9, 0.999, 1e-8


def cases(selection):
    if not os.path.exists(os.path.join(DATA, "train-images-idx3-ubyte.gz")) or selection == "quick":
        return []
    return [common.Case("epoch", "fashion-mnist mlp", "make run", {}, 1, gate_iters=1, rtol=0, atol=0.005)]


def write_inputs(case, d):
    pass  # the example reads the dataset itself and writes the initial weights


def dlm_source(case, iters):
    text = open(EXAMPLE).read()
    text, n = re.subn(r"^epochs = \d+$", "epochs = %d" % iters, text, flags=re.M)
    assert n == 1, "examples/fashion_mnist_mlp.dlm no longer has an 'epochs = N' line"
    return text


def _idx(name):
    with gzip.open(os.path.join(DATA, name)) as f:
        raw = f.read()
    dims = raw[3]
    shape = struct.unpack(">" + "I" * dims, raw[4:4 + 4 * dims])
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * dims).reshape(shape)


def _dataset():
    x = _idx("train-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32) / 255.0
    y = _idx("train-labels-idx1-ubyte.gz").astype(np.int64)
    xt = _idx("t10k-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32) / 255.0
    yt = _idx("t10k-labels-idx1-ubyte.gz").astype(np.int64)
    return x, y, xt, yt


def _first_permutation(n):
    sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "e2e", "twins"))
    from dlmref import Rng
    rng = Rng(0)
    rng._reserve(784 * 256)  # init_mlp's two randn calls come first on the stream
    rng._reserve(256 * 10)
    return rng.randperm(n)


class EpochRunner:
    """state: whatever the framework's epoch carries; `epoch(state) -> (state, accuracy)`."""

    def __init__(self, make_state, epoch):
        self.make_state, self.epoch = make_state, epoch
        self.reset()

    def reset(self):
        self.state, self.acc = self.make_state(), float("nan")

    def step(self):
        self.state, self.acc = self.epoch(self.state)

    def sync(self):
        self.acc = float(self.acc)

    def loss(self):
        return float(self.acc)


def _jax(init, x, y, xt, yt, perm):
    import jax
    import jax.numpy as jnp

    def loss(p, xb, yb):
        w1, b1, w2, b2 = p
        z = jax.nn.relu(xb @ w1 + b1) @ w2 + b2
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(z), yb[:, None], axis=1))

    @jax.jit
    def step(p, m, v, t, xb, yb):
        g = jax.grad(loss)(p, xb, yb)
        t = t + 1
        m = [B1 * a + (1 - B1) * b for a, b in zip(m, g)]
        v = [B2 * a + (1 - B2) * b * b for a, b in zip(v, g)]
        p = [a - LR * (mm / (1 - B1 ** t)) / (jnp.sqrt(vv / (1 - B2 ** t)) + EPS) for a, mm, vv in zip(p, m, v)]
        return p, m, v, t

    @jax.jit
    def accuracy(p, xs, ys):
        w1, b1, w2, b2 = p
        return jnp.mean(jnp.argmax(jax.nn.relu(xs @ w1 + b1) @ w2 + b2, axis=1) == ys)

    x, y, xt, yt, perm = map(jnp.asarray, (x, y, xt, yt, perm))

    def epoch(s):
        p, m, v, t = s
        xe, ye = x[perm], y[perm]
        for i in range(len(x) // BATCH):
            p, m, v, t = step(p, m, v, t, xe[i * BATCH:(i + 1) * BATCH], ye[i * BATCH:(i + 1) * BATCH])
        return (p, m, v, t), accuracy(p, xt, yt)

    zeros = [np.zeros_like(a) for a in init]
    return EpochRunner(lambda: ([jnp.asarray(a) for a in init], list(map(jnp.asarray, zeros)),
                                list(map(jnp.asarray, zeros)), jnp.float32(0)), epoch)


def _torch(init, x, y, xt, yt, perm, compiled):
    import torch
    import torch.nn.functional as F

    def model(p, xb):
        w1, b1, w2, b2 = p
        return torch.relu(xb @ w1 + b1) @ w2 + b2

    def loss(p, xb, yb):
        return F.cross_entropy(model(p, xb), yb)
    loss_fn = torch.compile(loss) if compiled else loss
    x, y, xt, yt, perm = map(torch.from_numpy, (x, y, xt, yt, perm))

    def make():
        p = [torch.from_numpy(a.copy()).requires_grad_(True) for a in init]
        return p, torch.optim.Adam(p, lr=LR, betas=(B1, B2), eps=EPS)

    def epoch(s):
        p, opt = s
        xe, ye = x[perm], y[perm]
        for i in range(len(x) // BATCH):
            value = loss_fn(p, xe[i * BATCH:(i + 1) * BATCH], ye[i * BATCH:(i + 1) * BATCH])
            opt.zero_grad()
            value.backward()
            opt.step()
        with torch.no_grad():
            acc = (model(p, xt).argmax(1) == yt).float().mean().item()
        return (p, opt), acc
    return EpochRunner(make, epoch)


def _tf(init, x, y, xt, yt, perm):
    import tensorflow as tf

    def loss(p, xb, yb):
        w1, b1, w2, b2 = p
        z = tf.nn.relu(xb @ w1 + b1) @ w2 + b2
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=z))

    @tf.function
    def step(p, m, v, t, xb, yb):
        with tf.GradientTape() as tape:
            tape.watch(p)
            value = loss(p, xb, yb)
        g = tape.gradient(value, p)
        t = t + 1.0
        m = [B1 * a + (1 - B1) * b for a, b in zip(m, g)]
        v = [B2 * a + (1 - B2) * b * b for a, b in zip(v, g)]
        p = [a - LR * (mm / (1 - B1 ** t)) / (tf.sqrt(vv / (1 - B2 ** t)) + EPS) for a, mm, vv in zip(p, m, v)]
        return p, m, v, t

    @tf.function
    def accuracy(p, xs, ys):
        w1, b1, w2, b2 = p
        hits = tf.argmax(tf.nn.relu(xs @ w1 + b1) @ w2 + b2, axis=1) == ys
        return tf.reduce_mean(tf.cast(hits, tf.float32))

    x, y, xt, yt, perm = map(tf.constant, (x, y, xt, yt, perm))

    def epoch(s):
        p, m, v, t = s
        xe, ye = tf.gather(x, perm), tf.gather(y, perm)
        for i in range(x.shape[0] // BATCH):
            p, m, v, t = step(p, m, v, t, xe[i * BATCH:(i + 1) * BATCH], ye[i * BATCH:(i + 1) * BATCH])
        return (p, m, v, t), accuracy(p, xt, yt).numpy()

    zeros = [np.zeros_like(a) for a in init]
    return EpochRunner(lambda: ([tf.constant(a) for a in init], list(map(tf.constant, zeros)),
                                list(map(tf.constant, zeros)), tf.constant(0.0)), epoch)


def build(side, case, d):
    init = common.read_safetensors(os.path.join(d, "fashion_mnist_mlp.init.safetensors"))
    x, y, xt, yt = _dataset()
    perm = _first_permutation(len(x))
    fw = common.FRAMEWORK[side]
    if fw == "jax":
        return _jax(init, x, y, xt, yt, perm)
    if fw == "tf":
        return _tf(init, x, y, xt, yt, perm)
    return _torch(init, x, y, xt, yt, perm, compiled=side == "torch_compile")
