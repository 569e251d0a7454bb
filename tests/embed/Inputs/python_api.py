"""The Python module dlm (python/DlmPython.cpp) on tests/embed/Inputs/mlp.dlm: numpy arrays and
torch tensors (through __dlpack__) in, numpy arrays out, grad and value_and_grad, scalars and
tuples, each result checked against numpy or PyTorch autograd; every bad call raises its dlm
exception with the diagnostic text, printed for FileCheck. Usage: python_api.py MODEL jit|graph
"""
import sys
import threading

import numpy as np
import torch

import dlm

model, engine = sys.argv[1], sys.argv[2]
IN, HIDDEN, OUT = 4, 8, 3


def data(n, salt):
    return (np.sin(np.arange(n) * 0.37 + salt) * 0.5).astype(np.float32)


w1 = data(IN * HIDDEN, 1.0).reshape(IN, HIDDEN)
b1 = data(HIDDEN, 2.0)
w2 = data(HIDDEN * OUT, 3.0).reshape(HIDDEN, OUT)
b2 = data(OUT, 4.0)
x3 = data(3 * IN, 5.0).reshape(3, IN)
y3 = np.array([2, 0, 1], dtype=np.int64)
params = (w1, b1, w2, b2)


def reference_predict(w1, b1, w2, b2, x):
    return np.maximum(x @ w1 + b1, 0) @ w2 + b2


def torch_grads(argnums):
    ts = [torch.tensor(p, requires_grad=True) for p in params]
    logits = torch.relu(torch.tensor(x3) @ ts[0] + ts[1]) @ ts[2] + ts[3]
    value = torch.nn.functional.cross_entropy(logits, torch.tensor(y3))
    value.backward()
    return value.item(), [t.grad.numpy() for t in ts]


def close(name, got, want):
    assert isinstance(got, np.ndarray), f"{name}: {type(got)} is no numpy array"
    assert got.shape == np.shape(want), f"{name}: shape {got.shape}, expected {np.shape(want)}"
    assert np.allclose(got, want, rtol=1e-5, atol=1e-6), f"{name}: {got} != {want}"
    print(f"{name} ok {got.dtype} {list(got.shape)}")


def error(what, f, *args):
    try:
        f(*args)
    except dlm.Error as e:
        first = str(e).splitlines()[0]
        print(f"error {what}: {type(e).__name__} code {e.code}: {first}")
        return e
    print(f"error {what}: none")


m = dlm.load(model, engine=engine)
print("defs:", ", ".join(d.name for d in m.defs))
print("signature:", m.defs[0].signature)

# numpy in, numpy out; another batch size; a transposed (strided) input; byte strides that are
# no whole element (copied first).
close("predict", m.predict(*params, x3), reference_predict(*params, x3))
x5 = data(5 * IN, 6.0).reshape(5, IN)
close("predict5", m.predict(*params, x5), reference_predict(*params, x5))
xt = np.ascontiguousarray(x3.T).T
close("predict strided", m.predict(*params, xt), reference_predict(*params, x3))
raw = np.zeros(3 * IN * 4 + 1, dtype=np.uint8)
odd = np.ndarray((3, IN), dtype=np.float32, buffer=raw[1:].data, strides=(IN * 4, 4))
odd[...] = x3
close("predict unaligned", m.predict(*params, odd), reference_predict(*params, x3))

# torch tensors through __dlpack__, and a mix.
tparams = [torch.tensor(p) for p in params]
close("predict torch", m.predict(*tparams, torch.tensor(x3)), reference_predict(*params, x3))
close("predict mixed", m.predict(tparams[0], b1, w2, tparams[3], x3), reference_predict(*params, x3))

# grad and value_and_grad against PyTorch autograd.
value, grads = torch_grads((0, 1, 2, 3))
g = dlm.grad(m.loss)(params, x3, y3)
for i in range(4):
    close(f"grad.{i}", g[i], grads[i])
v, g = dlm.value_and_grad(m.loss, argnums=(0,))(params, x3, y3)
close("value_and_grad.value", v, np.float32(value))
for i in range(4):
    close(f"value_and_grad.{i}", g[0][i], grads[i])
new_params, l = m.step(params, x3, y3, 0.5)
close("step.loss", l, np.float32(value))
for i in range(4):
    close(f"step.{i}", new_params[i], params[i] - 0.5 * grads[i])

# Scalars and tuples.
s, k, flag = m.stats(data(6, 7.0), 3, 2.0, True)
close("stats.0", s, -(data(6, 7.0).sum() * 2.0))
print("stats.1", type(k).__name__, k, "stats.2", type(flag).__name__, flag)
print("nothing:", m.nothing(x3))
print("repr:", m.predict, dlm.grad(m.loss, argnums=(0, 1)))

# Many Python threads calling at once (the GIL is released while dlm runs).
results = [None] * 8


def worker(i):
    results[i] = m.predict(*params, x3 + i)


threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for i in range(8):
    assert np.allclose(results[i], reference_predict(*params, x3 + i), rtol=1e-5, atol=1e-6)
print("8 threads agree")

# Bad calls.
error("f32 labels", m.loss, params, x3, y3.astype(np.float32))
error("rank-1 x", m.predict, *params, x3.reshape(-1))
error("x with 5 columns", m.predict, *params, np.zeros((3, 5), np.float32))
error("four arguments", m.predict, *params)
error("uint8 x", m.predict, *params, x3.astype(np.uint8))
error("index out of range", m.pick, data(6, 7.0), 7)
error("grad of a non-scalar", dlm.grad(m.predict), *params, x3)
e = error("missing file", dlm.load, "/nonexistent/model.dlm")
print("missing file is an OSError:", isinstance(e, OSError))
error("syntax error", dlm.loads, "def f(x):\n    return x +\n")
try:
    m.predcit
except AttributeError as e:
    print("error unknown def: AttributeError:", e)
try:
    m.predict(*params, object())
except TypeError as e:
    print("error object argument: TypeError:", e)
try:
    m.predict(*params, torch.tensor(x3, requires_grad=True))
except RuntimeError as e:
    print("error torch tensor requiring grad: RuntimeError")
print("done")
