"""LSTM and GRU training iterations: 100 time steps, batch 1, forward + backward + SGD.

Formulations (the axes users actually vary), each a case of its own:
  layout  pre: weights stored [in, G*H] and used as `x @ w`;
          T:   stored as PyTorch stores them, [G*H, in], and transposed inside the loop (`x @ w.T`)
  trip    const: `for t in range(100)`;
          data:  the trip count from the data, `range(xs.shape[0])` (dlm: the sequence read with
                 data.load_csv, so its length is only known at run time; JAX: lax.scan over xs;
                 TF: tf.range(tf.shape(xs)[0]); PyTorch: xs.shape[0])
  gates   cat:  one weight per input for all gates, the product split with chunk;
          gate: one weight (and bias) per gate, G products per input
Every formulation starts from the same numbers (per-gate weights are the column blocks of the
concatenated ones), so all formulations of one size compute the same loss. Input rows are
`reshape(xs[t], 1, in)` of a [T, in] sequence; the loss is sum(h_T @ wo).
"""
import os

import numpy as np

from . import common

LR = 0.01


def _case(cell, h, n_in, form, iters, compiled):
    layout, trip, gates = form
    cfg = dict(cell=cell, H=h, IN=n_in, T=100, layout=layout, trip=trip, gates=gates)
    return common.Case(cell, "h%d in%d" % (h, n_in), "%s/%s/%s" % form, cfg, iters, module="recurrent",
                       sides=common.SIDES if compiled else common.WITHOUT_COMPILE)


FORMS = [(lay, trip, g) for g in ("cat", "gate") for lay in ("pre", "T") for trip in ("const", "data")]
ENDS = [("pre", "const", "cat"), ("T", "data", "cat")]  # dlm's way and PyTorch users' way


def cases(selection):
    """default: every LSTM formulation at h32 in8, the two ends at h128 and h512 (in 32); the GRU's
    four cat/gate x pre/T formulations (constant trip) at h32 and its two ends at h128.
    all: every formulation of both cells at h32 in8, the two ends at the other sizes.
    quick: every LSTM formulation and the GRU's two ends at h32 in8.
    torch.compile: the two ends at h32 in8 (all: every case)."""
    full = selection == "all"
    if selection == "quick":
        return [_case("lstm", 32, 8, f, 200, True) for f in FORMS] + [_case("gru", 32, 8, f, 200, True) for f in ENDS]
    out = [_case("lstm", 32, 8, f, 200, full or f in ENDS) for f in FORMS]
    for h, n_in, iters in [(128, 32, 100), (512, 32, 20)] + ([(32, 32, 200), (128, 8, 100)] if full else []):
        out += [_case("lstm", h, n_in, f, iters, full) for f in ENDS]
    gru_forms = FORMS if full else [f for f in FORMS if f[1] == "const"] + [ENDS[1]]
    out += [_case("gru", 32, 8, f, 200, full or f in ENDS) for f in gru_forms]
    for h, n_in, iters in [(128, 32, 100)] + ([(512, 32, 20)] if full else []):
        out += [_case("gru", h, n_in, f, iters, full) for f in ENDS]
    return out


def _gates(cfg):
    return 4 if cfg["cell"] == "lstm" else 3


def _params(cfg, base):
    """The parameter list of this formulation from the concatenated pre-layout weights."""
    wx, wh, b, wo = base
    g, h = _gates(cfg), cfg["H"]
    t = (lambda w: np.ascontiguousarray(w.T)) if cfg["layout"] == "T" else (lambda w: w)
    if cfg["gates"] == "cat":
        return [t(wx), t(wh), b, wo]
    cols = [slice(k * h, (k + 1) * h) for k in range(g)]
    return ([t(np.ascontiguousarray(wx[:, c])) for c in cols] + [t(np.ascontiguousarray(wh[:, c])) for c in cols]
            + [b[c].copy() for c in cols] + [wo])


def write_inputs(case, d):
    cfg = case.cfg
    g, h, n_in = _gates(cfg), cfg["H"], cfg["IN"]
    r = common.rng(h * 1000 + n_in)
    a = 1.0 / np.sqrt(h)
    base = [r.uniform(-a, a, (n_in, g * h)).astype(np.float32), r.uniform(-a, a, (h, g * h)).astype(np.float32),
            r.uniform(-a, a, (g * h,)).astype(np.float32), r.uniform(-a, a, (h, 1)).astype(np.float32)]
    xs = r.standard_normal((cfg["T"], n_in)).astype(np.float32)
    common.write_safetensors(os.path.join(d, "init.safetensors"), _params(cfg, base))
    common.write_safetensors(os.path.join(d, "data.safetensors"), [xs])
    with open(os.path.join(d, "xs.csv"), "w") as f:
        for row in xs:
            f.write(",".join("%.9g" % v for v in row) + "\n")


# --- dlm --------------------------------------------------------------------------------------

_NAMES = {"lstm": "ifgo", "gru": "rzn"}


def _dlm_cell(cfg):
    w = (lambda n: n + ".T") if cfg["layout"] == "T" else (lambda n: n)
    if cfg["cell"] == "lstm" and cfg["gates"] == "cat":
        return ["z = x @ %s + h @ %s + b" % (w("wx"), w("wh")),
                "i, f, g, o = chunk(z, 4, axis=1)",
                "c = sigmoid(f) * c + sigmoid(i) * tanh(g)",
                "h = sigmoid(o) * tanh(c)"]
    if cfg["cell"] == "lstm":
        act = {"i": "sigmoid", "f": "sigmoid", "g": "tanh", "o": "sigmoid"}
        return (["%s = %s(x @ %s + h @ %s + b%s)" % (k, act[k], w("wx" + k), w("wh" + k), k) for k in "ifgo"]
                + ["c = f * c + i * g", "h = o * tanh(c)"])
    if cfg["gates"] == "cat":
        return ["xr, xz, xn = chunk(x @ %s + b, 3, axis=1)" % w("wx"),
                "hr, hz, hn = chunk(h @ %s, 3, axis=1)" % w("wh"),
                "r = sigmoid(xr + hr)", "u = sigmoid(xz + hz)", "n = tanh(xn + r * hn)",
                "h = (1.0 - u) * n + u * h"]
    return ["r = sigmoid(x @ %s + br + h @ %s)" % (w("wxr"), w("whr")),
            "u = sigmoid(x @ %s + bz + h @ %s)" % (w("wxz"), w("whz")),
            "n = tanh(x @ %s + bn + r * (h @ %s))" % (w("wxn"), w("whn")),
            "h = (1.0 - u) * n + u * h"]


def dlm_source(case, iters):
    cfg = case.cfg
    h, n_in, t = cfg["H"], cfg["IN"], cfg["T"]
    names = _NAMES[cfg["cell"]]
    if cfg["gates"] == "cat":
        unpack = "wx, wh, b, wo"
    else:
        unpack = ", ".join(["wx" + k for k in names] + ["wh" + k for k in names] + ["b" + k for k in names] + ["wo"])
    init = common.read_safetensors(os.path.join(case.dir, "init.safetensors"))
    state = ["    h = zeros(1, %d)" % h] + (["    c = zeros(1, %d)" % h] if cfg["cell"] == "lstm" else [])
    loop = "for t in range(%d):" % t if cfg["trip"] == "const" else "for t in range(xs.shape[0]):"
    read = ('xs = load("data.safetensors", like=zeros(%d, %d))' % (t, n_in) if cfg["trip"] == "const"
            else 'xs = data.load_csv("xs.csv")')
    lines = ["# %s %s: forward + backward + SGD (bench/peers/workloads/recurrent.py)" % (case.family, case.name)]
    if cfg["trip"] == "data":
        lines.append("import data")
    lines += ["def loss(p, xs):", "    %s = p" % unpack] + state + [
        "    " + loop, "        x = reshape(xs[t], 1, %d)" % n_in] + ["        " + s for s in _dlm_cell(cfg)] + [
        "    return sum(h @ wo)", "",
        'p = load("init.safetensors", like=%s)' % common.like(init), read,
        "for it in range(%d):" % iters,
        "    g = grad(loss)(p, xs)",
        "    p = p - %g * g" % LR,
        "print(loss(p, xs))"]
    return "\n".join(lines) + "\n"


# --- the peers: one cell, written against each framework's namespace ---------------------------

class _Ops:
    def __init__(self, sigmoid, tanh, chunk, transpose):
        self.sigmoid, self.tanh, self.chunk, self.t = sigmoid, tanh, chunk, transpose


def _cell(cfg, ops):
    """cell(p, x, state) -> state, state (h, c) for an LSTM and (h,) for a GRU."""
    w = ops.t if cfg["layout"] == "T" else (lambda a: a)
    sig, tanh = ops.sigmoid, ops.tanh
    if cfg["cell"] == "lstm" and cfg["gates"] == "cat":
        def lstm_cat(p, x, s):
            wx, wh, b = p[0], p[1], p[2]
            h, c = s
            i, f, g, o = ops.chunk(x @ w(wx) + h @ w(wh) + b, 4)
            c = sig(f) * c + sig(i) * tanh(g)
            return sig(o) * tanh(c), c
        return lstm_cat
    if cfg["cell"] == "lstm":
        def lstm_gate(p, x, s):
            h, c = s
            i = sig(x @ w(p[0]) + h @ w(p[4]) + p[8])
            f = sig(x @ w(p[1]) + h @ w(p[5]) + p[9])
            g = tanh(x @ w(p[2]) + h @ w(p[6]) + p[10])
            o = sig(x @ w(p[3]) + h @ w(p[7]) + p[11])
            c = f * c + i * g
            return o * tanh(c), c
        return lstm_gate
    if cfg["gates"] == "cat":
        def gru_cat(p, x, s):
            (h,) = s
            xr, xz, xn = ops.chunk(x @ w(p[0]) + p[2], 3)
            hr, hz, hn = ops.chunk(h @ w(p[1]), 3)
            r, u = sig(xr + hr), sig(xz + hz)
            n = tanh(xn + r * hn)
            return ((1.0 - u) * n + u * h,)
        return gru_cat

    def gru_gate(p, x, s):
        (h,) = s
        r = sig(x @ w(p[0]) + p[6] + h @ w(p[3]))
        u = sig(x @ w(p[1]) + p[7] + h @ w(p[4]))
        n = tanh(x @ w(p[2]) + p[8] + r * (h @ w(p[5])))
        return ((1.0 - u) * n + u * h,)
    return gru_gate


def _jax_loss(cfg):
    import jax
    import jax.numpy as jnp
    from jax import lax
    cell = _cell(cfg, _Ops(jax.nn.sigmoid, jnp.tanh, lambda z, n: jnp.split(z, n, axis=1), lambda a: a.T))
    h, n_in, n_state = cfg["H"], cfg["IN"], 2 if cfg["cell"] == "lstm" else 1

    def loss(p, xs):
        s = tuple(jnp.zeros((1, h), jnp.float32) for _ in range(n_state))
        if cfg["trip"] == "const":
            s = lax.fori_loop(0, cfg["T"], lambda t, s: cell(p, xs[t].reshape(1, n_in), s), s)
        else:
            s, _ = lax.scan(lambda s, x: (cell(p, x.reshape(1, n_in), s), None), s, xs)
        return jnp.sum(s[0] @ p[-1])
    return loss


def _torch_loss(cfg):
    import torch
    cell = _cell(cfg, _Ops(torch.sigmoid, torch.tanh, lambda z, n: z.chunk(n, 1), lambda a: a.T))
    h, n_in, n_state = cfg["H"], cfg["IN"], 2 if cfg["cell"] == "lstm" else 1

    def loss(p, xs):
        s = tuple(torch.zeros(1, h) for _ in range(n_state))
        steps = cfg["T"] if cfg["trip"] == "const" else xs.shape[0]
        for t in range(steps):
            s = cell(p, xs[t].reshape(1, n_in), s)
        return (s[0] @ p[-1]).sum()
    return loss


def _tf_loss(cfg):
    import tensorflow as tf
    cell = _cell(cfg, _Ops(tf.sigmoid, tf.tanh, lambda z, n: tf.split(z, n, axis=1), tf.transpose))
    h, n_in, lstm = cfg["H"], cfg["IN"], cfg["cell"] == "lstm"

    def loss(p, xs):
        hs = tf.zeros([1, h])
        cs = tf.zeros([1, h])
        steps = cfg["T"] if cfg["trip"] == "const" else tf.shape(xs)[0]
        for t in tf.range(steps):
            x = tf.reshape(xs[t], [1, n_in])
            if lstm:
                hs, cs = cell(p, x, (hs, cs))
            else:
                (hs,) = cell(p, x, (hs,))
        return tf.reduce_sum(hs @ p[-1])
    return loss


def build(side, case, d):
    params, (xs,) = common.read_inputs(d)
    fw = common.FRAMEWORK[side]
    loss = {"jax": _jax_loss, "torch": _torch_loss, "tf": _tf_loss}[fw](case.cfg)
    return common.sgd_runner(side, {fw: loss}, params, [xs], LR)
