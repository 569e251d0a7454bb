"""MLP 784-256-10 training step: forward, cross-entropy, backward, SGD (lr 0.1).

Formulations:
  in-out:  weights [in, out], `relu(x @ w1 + b1) @ w2 + b2`, the framework's cross-entropy
  out-in:  weights stored as nn.Linear stores them, [out, in], `x @ w1.T + b1`
  by-hand: weights [in, out], the loss written out: mean(logsumexp(logits) - sum(logits * onehot))
Batch 32, 128, 512; the data (uniform pixels, labels 0..9 in turn) is the same for every side.
"""
import os

import numpy as np

from . import common

LR = 0.1
FORMS = ("in-out", "out-in", "by-hand")


def cases(selection):
    out = []
    for b in (128,) if selection == "quick" else (32, 128, 512):
        for form in FORMS:
            compiled = selection == "all" or (b == 128 and form != "by-hand")
            out.append(common.Case("mlp", "784-256-10 b%d" % b, form, {"B": b, "form": form},
                                   {32: 400, 128: 200, 512: 50}[b],
                                   sides=common.SIDES if compiled else common.WITHOUT_COMPILE))
    return out


def write_inputs(case, d):
    b, form = case.cfg["B"], case.cfg["form"]
    r = common.rng(b)
    w1 = (r.standard_normal((784, 256)) * 0.05).astype(np.float32)
    w2 = (r.standard_normal((256, 10)) * 0.05).astype(np.float32)
    params = [w1, np.zeros(256, np.float32), w2, np.zeros(10, np.float32)]
    if form == "out-in":
        params = [np.ascontiguousarray(w1.T), params[1], np.ascontiguousarray(w2.T), params[3]]
    x = r.uniform(0, 1, (b, 784)).astype(np.float32)
    y = (np.arange(b) % 10).astype(np.int64)
    onehot = np.eye(10, dtype=np.float32)[y]
    common.write_safetensors(os.path.join(d, "init.safetensors"), params)
    common.write_safetensors(os.path.join(d, "data.safetensors"), [x, y, onehot])


def dlm_source(case, iters):
    b, form = case.cfg["B"], case.cfg["form"]
    init = common.read_safetensors(os.path.join(case.dir, "init.safetensors"))
    data = common.read_safetensors(os.path.join(case.dir, "data.safetensors"))
    if form == "out-in":
        logits = "relu(x @ w1.T + b1) @ w2.T + b2"
    else:
        logits = "relu(x @ w1 + b1) @ w2 + b2"
    if form == "by-hand":
        body = ["    z = %s" % logits, "    return mean(logsumexp(z, axis=1) - sum(z * onehot, axis=1))"]
    else:
        body = ["    return cross_entropy(%s, y)" % logits]
    return "\n".join(
        ["# MLP 784-256-10, batch %d, %s: forward + backward + SGD (bench/peers/workloads/mlp.py)" % (b, form),
         "def loss(p, x, y, onehot):", "    w1, b1, w2, b2 = p"] + body + [
            "",
            'p = load("init.safetensors", like=%s)' % common.like(init),
            'x, y, onehot = load("data.safetensors", like=%s)' % common.like(data),
            "for it in range(%d):" % iters,
            "    g = grad(loss)(p, x, y, onehot)",
            "    p = p - %g * g" % LR,
            "print(loss(p, x, y, onehot))"]) + "\n"


def _loss(form, fw):
    if fw == "jax":
        import jax
        import jax.numpy as jnp

        def xent(z, y, onehot):
            if form == "by-hand":
                return jnp.mean(jax.scipy.special.logsumexp(z, axis=1) - jnp.sum(z * onehot, axis=1))
            return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(z), y[:, None], axis=1))
        relu, t = jax.nn.relu, (lambda a: a.T)
    elif fw == "torch":
        import torch
        import torch.nn.functional as F

        def xent(z, y, onehot):
            if form == "by-hand":
                return torch.mean(torch.logsumexp(z, dim=1) - torch.sum(z * onehot, dim=1))
            return F.cross_entropy(z, y)
        relu, t = torch.relu, (lambda a: a.T)
    else:
        import tensorflow as tf

        def xent(z, y, onehot):
            if form == "by-hand":
                return tf.reduce_mean(tf.reduce_logsumexp(z, axis=1) - tf.reduce_sum(z * onehot, axis=1))
            return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=z))
        relu, t = tf.nn.relu, tf.transpose

    def loss(p, x, y, onehot):
        w1, b1, w2, b2 = p
        if form == "out-in":
            z = relu(x @ t(w1) + b1) @ t(w2) + b2
        else:
            z = relu(x @ w1 + b1) @ w2 + b2
        return xent(z, y, onehot)
    return loss


def build(side, case, d):
    params, data = common.read_inputs(d)
    fw = common.FRAMEWORK[side]
    return common.sgd_runner(side, {fw: _loss(case.cfg["form"], fw)}, params, data, LR)
