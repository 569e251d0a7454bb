"""A causal self-attention block with layer norm: forward, backward and SGD (lr 0.01).

    h = layer_norm(x) (gain, bias; eps 1e-5);  q, k, v = h @ wq, h @ wk, h @ wv
    y = x + softmax(causal(q @ k^T / sqrt(d))) @ v @ wo;  loss = mean(y * y)
One head, d 64, batch 8, T 64 and 256 (x [8, T, 64]). Formulations:
  split-where:  separate wq, wk, wv [d, d]; the mask made from a comparison of aranges (tril in
                the peers) and applied with where(mask, s, -1e9)
  fused-add:    one wqkv [d, 3d] whose product is chunked into q, k, v; an additive mask
                (0 on and below the diagonal, -1e9 above) passed in as data
"""
import math
import os

import numpy as np

from . import common

LR = 0.01
D = 64
B = 8


def cases(selection):
    return [common.Case("attention", "T%d d64 b8" % t, form, {"T": t, "form": form}, {64: 50, 256: 10}[t],
                        rtol=5e-4, sides=common.SIDES if selection == "all" or t == 64 else common.WITHOUT_COMPILE)
            for t in ((64,) if selection == "quick" else (64, 256)) for form in ("split-where", "fused-add")]


def write_inputs(case, d):
    t, form = case.cfg["T"], case.cfg["form"]
    r = common.rng(t)
    ws = [(r.standard_normal((D, D)) / math.sqrt(D)).astype(np.float32) for _ in range(4)]
    ln = [np.ones(D, np.float32), np.zeros(D, np.float32)]
    params = ln + (ws if form == "split-where" else [np.concatenate(ws[:3], axis=1), ws[3]])
    x = r.standard_normal((B, t, D)).astype(np.float32)
    data = [x]
    if form == "fused-add":
        data.append(np.where(np.tril(np.ones((t, t), bool)), 0.0, -1e9).astype(np.float32))
    common.write_safetensors(os.path.join(d, "init.safetensors"), params)
    common.write_safetensors(os.path.join(d, "data.safetensors"), data)


def dlm_source(case, iters):
    t, form = case.cfg["T"], case.cfg["form"]
    init = common.read_safetensors(os.path.join(case.dir, "init.safetensors"))
    data = common.read_safetensors(os.path.join(case.dir, "data.safetensors"))
    head = ["def loss(p, x%s):" % (", mask" if form == "fused-add" else ""),
            "    gain, bias, %s = p" % ("wq, wk, wv, wo" if form == "split-where" else "wqkv, wo"),
            "    mu = mean(x, axis=-1, keepdims=True)",
            "    var = mean((x - mu) * (x - mu), axis=-1, keepdims=True)",
            "    h = (x - mu) / sqrt(var + 1e-5) * gain + bias"]
    if form == "split-where":
        body = ["    q = h @ wq", "    k = h @ wk", "    v = h @ wv",
                "    s = q @ transpose(k, (0, 2, 1)) * %r" % (1 / math.sqrt(D)),
                "    causal = reshape(arange(%d), %d, 1) >= reshape(arange(%d), 1, %d)" % (t, t, t, t),
                "    s = where(causal, s, -1e9)"]
        args = "x"
    else:
        body = ["    q, k, v = chunk(h @ wqkv, 3, axis=2)",
                "    s = q @ transpose(k, (0, 2, 1)) * %r + mask" % (1 / math.sqrt(D))]
        args = "x, mask"
    return "\n".join(
        ["# causal self-attention block, T %d, %s: forward + backward + SGD (bench/peers/workloads/attention.py)"
         % (t, form)] + head + body + [
            "    y = x + softmax(s, axis=-1) @ v @ wo",
            "    return mean(y * y)", "",
            'p = load("init.safetensors", like=%s)' % common.like(init),
            "%s = load(\"data.safetensors\", like=%s)" % (args, common.like(data)),
            "for it in range(%d):" % iters,
            "    g = grad(loss)(p, %s)" % args,
            "    p = p - %g * g" % LR,
            "print(loss(p, %s))" % args]) + "\n"


def _loss(form, t, fw):
    scale = 1 / math.sqrt(D)
    if fw == "jax":
        import jax
        import jax.numpy as jnp
        mean, sqrt, softmax, where = jnp.mean, jnp.sqrt, jax.nn.softmax, jnp.where
        tril = lambda: jnp.tril(jnp.ones((t, t), bool))  # noqa: E731
        kt = lambda k: jnp.swapaxes(k, 1, 2)  # noqa: E731
        chunk = lambda z: jnp.split(z, 3, axis=2)  # noqa: E731
    elif fw == "torch":
        import torch
        mean = lambda a, axis, keepdims: a.mean(dim=axis, keepdim=keepdims)  # noqa: E731
        sqrt, softmax, where = torch.sqrt, lambda s, axis: torch.softmax(s, dim=axis), torch.where
        tril = lambda: torch.tril(torch.ones(t, t, dtype=torch.bool))  # noqa: E731
        kt = lambda k: k.transpose(1, 2)  # noqa: E731
        chunk = lambda z: z.chunk(3, dim=2)  # noqa: E731
    else:
        import tensorflow as tf
        mean = lambda a, axis, keepdims: tf.reduce_mean(a, axis=axis, keepdims=keepdims)  # noqa: E731
        sqrt, softmax, where = tf.sqrt, lambda s, axis: tf.nn.softmax(s, axis=axis), tf.where
        tril = lambda: tf.cast(tf.linalg.band_part(tf.ones([t, t]), -1, 0), tf.bool)  # noqa: E731
        kt = lambda k: tf.transpose(k, [0, 2, 1])  # noqa: E731
        chunk = lambda z: tf.split(z, 3, axis=2)  # noqa: E731

    def loss(p, x, *mask):
        gain, bias = p[0], p[1]
        mu = mean(x, axis=-1, keepdims=True)
        var = mean((x - mu) * (x - mu), axis=-1, keepdims=True)
        h = (x - mu) / sqrt(var + 1e-5) * gain + bias
        if form == "split-where":
            wq, wk, wv, wo = p[2:]
            q, k, v = h @ wq, h @ wk, h @ wv
            s = where(tril(), q @ kt(k) * scale, -1e9)
        else:
            wqkv, wo = p[2:]
            q, k, v = chunk(h @ wqkv)
            s = q @ kt(k) * scale + mask[0]
        y = x + softmax(s, axis=-1) @ v @ wo
        return mean(y * y, axis=None, keepdims=False)
    return loss


def build(side, case, d):
    params, data = common.read_inputs(d)
    fw = common.FRAMEWORK[side]
    return common.sgd_runner(side, {fw: _loss(case.cfg["form"], case.cfg["T"], fw)}, params, data, LR)
