"""The Fashion-MNIST CNN of examples/fashion_mnist_cnn.dlm, one SGD training step at batch 64.

conv 5x5 (1 -> 16, padding 2) - relu - max-pool 2 - conv 5x5 (16 -> 32, padding 2) - relu -
max-pool 2 - linear 1568 -> 10, cross-entropy, SGD (lr 0.05). One formulation, the example's:
dlm with stdlib nn.conv / nn.linear on NCHW activations and OIHW weights; JAX
lax.conv_general_dilated and PyTorch F.conv2d likewise NCHW; TF in NHWC, the only layout its CPU
convolution takes, with the same weights rearranged once before the step (HWIO filters, the
head's rows in NHWC flattening order). Inputs: the first 64 training images when Debian's
dataset-fashion-mnist is there (uniform pixels otherwise).
"""
import gzip
import os

import numpy as np

from . import common

LR = 0.05
N = 64


def cases(selection):
    return [common.Case("cnn", "fashion-mnist b64", "example", {}, 10, rtol=5e-4)]


def _images():
    root = os.environ.get("DLM_DATA", "/usr/share/datasets/fashion-mnist")
    try:
        with gzip.open(os.path.join(root, "train-images-idx3-ubyte.gz")) as f:
            raw = f.read(16 + N * 784)
        with gzip.open(os.path.join(root, "train-labels-idx1-ubyte.gz")) as f:
            labels = f.read(8 + N)
        x = np.frombuffer(raw, np.uint8, offset=16).reshape(N, 784).astype(np.float32) / 255.0
        return x, np.frombuffer(labels, np.uint8, offset=8).astype(np.int64)
    except OSError:
        r = common.rng(1)
        return r.uniform(0, 1, (N, 784)).astype(np.float32), (np.arange(N) % 10).astype(np.int64)


def write_inputs(case, d):
    r = common.rng(2)
    w1 = (r.standard_normal((16, 1, 5, 5)) * np.sqrt(2.0 / 25)).astype(np.float32)
    w2 = (r.standard_normal((32, 16, 5, 5)) * np.sqrt(2.0 / 400)).astype(np.float32)
    w3 = (r.standard_normal((1568, 10)) * np.sqrt(2.0 / 1568)).astype(np.float32)
    params = [w1, np.zeros(16, np.float32), w2, np.zeros(32, np.float32), w3, np.zeros(10, np.float32)]
    common.write_safetensors(os.path.join(d, "init.safetensors"), params)
    common.write_safetensors(os.path.join(d, "data.safetensors"), list(_images()))


def dlm_source(case, iters):
    init = common.read_safetensors(os.path.join(case.dir, "init.safetensors"))
    return "\n".join([
        "# examples/fashion_mnist_cnn.dlm's model, one SGD step at batch 64 (bench/peers/workloads/cnn.py)",
        "import nn",
        "def model(params, x, n):",
        "    c1, c2, head = params",
        "    x = reshape(x, n, 1, 28, 28)",
        "    x = max_pool2d(relu(nn.conv(c1, x, padding=2)), 2)",
        "    x = max_pool2d(relu(nn.conv(c2, x, padding=2)), 2)",
        "    return nn.linear(head, reshape(x, n, 32 * 7 * 7))",
        "",
        "def loss(params, x, y):",
        "    return cross_entropy(model(params, x, %d), y)" % N,
        "",
        'w1, b1, w2, b2, w3, b3 = load("init.safetensors", like=%s)' % common.like(init),
        "params = (w1, b1), (w2, b2), (w3, b3)",
        'x, y = load("data.safetensors", like=(zeros(%d, 784), zeros(%d, dtype=i64)))' % (N, N),
        "for it in range(%d):" % iters,
        "    g = grad(loss)(params, x, y)",
        "    params = params - %g * g" % LR,
        "print(loss(params, x, y))"]) + "\n"


def _jax_loss():
    import jax
    import jax.numpy as jnp
    from jax import lax

    def conv(x, w, b):
        y = lax.conv_general_dilated(x, w, (1, 1), ((2, 2), (2, 2)), dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return y + b.reshape(1, -1, 1, 1)

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def loss(p, x, y):
        w1, b1, w2, b2, w3, b3 = p
        h = pool(jax.nn.relu(conv(x.reshape(N, 1, 28, 28), w1, b1)))
        h = pool(jax.nn.relu(conv(h, w2, b2)))
        z = h.reshape(N, 1568) @ w3 + b3
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(z), y[:, None], axis=1))
    return loss


def _torch_loss():
    import torch
    import torch.nn.functional as F

    def loss(p, x, y):
        w1, b1, w2, b2, w3, b3 = p
        h = F.max_pool2d(torch.relu(F.conv2d(x.reshape(N, 1, 28, 28), w1, b1, padding=2)), 2)
        h = F.max_pool2d(torch.relu(F.conv2d(h, w2, b2, padding=2)), 2)
        return F.cross_entropy(h.reshape(N, 1568) @ w3 + b3, y)
    return loss


def _tf_loss():
    import tensorflow as tf

    def loss(p, x, y):
        w1, b1, w2, b2, w3, b3 = p
        h = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(tf.reshape(x, [N, 28, 28, 1]), w1, 1, "SAME") + b1), 2, 2, "VALID")
        h = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(h, w2, 1, "SAME") + b2), 2, 2, "VALID")
        z = tf.reshape(h, [N, 1568]) @ w3 + b3
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=z))
    return loss


def build(side, case, d):
    params, data = common.read_inputs(d)
    fw = common.FRAMEWORK[side]
    if fw == "tf":
        w1, b1, w2, b2, w3, b3 = params
        # OIHW -> HWIO; the head's rows from NCHW flattening (c, h, w) to NHWC's (h, w, c).
        w3 = w3.reshape(32, 7, 7, 10).transpose(1, 2, 0, 3).reshape(1568, 10)
        params = [np.ascontiguousarray(w1.transpose(2, 3, 1, 0)), b1, np.ascontiguousarray(w2.transpose(2, 3, 1, 0)),
                  b2, np.ascontiguousarray(w3), b3]
    loss = {"jax": _jax_loss, "torch": _torch_loss, "tf": _tf_loss}[fw]()
    return common.sgd_runner(side, {fw: loss}, params, data, LR)
