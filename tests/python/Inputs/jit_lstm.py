"""@dlm.jit on an LSTM: a step function and a loop that runs it while a value computed from
the hidden state stays below a limit (a `while` on tensor values, so the number of steps
depends on the data), its loss and its gradient, checked against the same loop run eagerly
by PyTorch autograd. Usage: jit_lstm.py jit|graph
"""
import sys

import numpy as np
import torch

import dlm

ENGINE = sys.argv[1]
BATCH, IN, HIDDEN, STEPS = 3, 5, 8, 12
LIMIT = 0.17  # read by `run` as a constant


def jit(f):
    return dlm.jit(f, engine=ENGINE)


@jit
def lstm_step(params, x, h, c):
    wx, wh, b = params
    z = x @ wx + h @ wh + b
    i, f, g, o = chunk(z, 4, axis=1)
    c = sigmoid(f) * c + sigmoid(i) * tanh(g)
    h = sigmoid(o) * tanh(c)
    return h, c


@jit
def run(params, xs, h, c):
    t = 0
    while t < STEPS and mean(abs(h)) < LIMIT:
        h, c = lstm_step(params, xs[t], h, c)
        t += 1
    return h, c, t


@jit
def loss(params, xs, h, c):
    h, c, t = run(params, xs, h, c)
    return sum(h * h) + 0.5 * sum(c)


def data(shape, salt):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.37 + salt) * 0.6).astype(np.float32).reshape(shape)


params = (data((IN, 4 * HIDDEN), 1.0), data((HIDDEN, 4 * HIDDEN), 2.0), data((4 * HIDDEN,), 3.0))
xs = data((STEPS, BATCH, IN), 4.0)
h0 = np.zeros((BATCH, HIDDEN), np.float32)
c0 = np.zeros((BATCH, HIDDEN), np.float32)


def torch_loss(params, xs, h, c):
    wx, wh, b = params
    t = 0
    while t < STEPS and h.abs().mean() < LIMIT:
        i, f, g, o = (xs[t] @ wx + h @ wh + b).chunk(4, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        t += 1
    return (h * h).sum() + 0.5 * c.sum(), t


def close(name, got, want, tol=2e-5):
    got = np.asarray(got)
    error = float(np.max(np.abs(got - want) / (1 + np.abs(want)))) if got.size else 0.0
    status = "ok" if got.shape == want.shape and error < tol else f"BAD (error {error:g})"
    print(f"{name} {status} {got.dtype} {list(got.shape)}")


tp = [torch.tensor(p, requires_grad=True) for p in params]
want_loss, want_steps = torch_loss(tp, torch.tensor(xs), torch.tensor(h0), torch.tensor(c0))
want_loss.backward()

h, c, steps = run(params, xs, h0, c0)
print(f"steps {steps} of {STEPS} (PyTorch {want_steps})")
close("loss", loss(params, xs, h0, c0), want_loss.detach().numpy())
value, grads = dlm.value_and_grad(loss)(params, xs, h0, c0)
close("value", value, want_loss.detach().numpy())
for name, g, t in zip(("wx", "wh", "b"), grads, tp):
    close("grad " + name, g, t.grad.numpy())
gxs = dlm.grad(loss, argnums=1)(params, xs, h0, c0)
print("grad xs rows past the last step are zero:", bool(np.all(gxs[steps:] == 0)))
# Another batch size compiles anew; the same types again reuse the code.
h, c, steps = run(params, data((STEPS, 7, IN), 5.0), np.zeros((7, HIDDEN), np.float32),
                  np.zeros((7, HIDDEN), np.float32))
print("batch 7:", list(h.shape), steps)
print(repr(run), repr(dlm.grad(loss)))
