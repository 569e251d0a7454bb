"""What a @dlm.jit function's names mean: another @dlm.jit function (defined before or after
it: compiled together into one dlm module), module-level bools, ints and floats (constants,
read when the decorator runs), a closure's numbers, dlm's built-ins and stdlib modules; a def
inside a function (indented in the file); and a function jax.jit rejects because it branches
on a value computed from its argument. Usage: jit_names.py jit|graph
"""
import sys
import threading

import numpy as np

import dlm

ENGINE = sys.argv[1]
WIDTH = 3
SCALE = 0.5
NEGATE = False


def jit(f):
    return dlm.jit(f, engine=ENGINE)


@jit
def scaled_sum(x):
    return twice(x) * SCALE + sum(zeros(WIDTH))


@jit
def twice(x):  # defined after its caller: resolved at the caller's first call
    return -(x * 2.0) if NEGATE else x * 2.0


SCALE = 100.0  # too late: scaled_sum read 0.5 when it was decorated
x = np.array([1.0, 2.0, 3.0], np.float32)
print("scaled_sum", scaled_sum(x).tolist())
print("twice", twice(x).tolist())


# jax.jit(sign_scale) fails: `if sum(x) > 0.0` needs a Python bool from a traced value
# (jax.errors.TracerBoolConversionError). dlm compiles the branch into the code.
@jit
def sign_scale(x):
    if sum(x) > 0.0:
        return x * 2.0
    return -x


print("sign_scale +", sign_scale(x).tolist(), "-", sign_scale(-x).tolist())


def make_scaler(k):
    @jit
    def scale_by(x):
        y = x * k
        return y

    return scale_by


print("closure", make_scaler(3)(x).tolist(), make_scaler(0.25)(x).tolist())


linear = 2.0  # named like nn's def `linear`: a constant of this file's code, not of nn's


@jit
def dense(params, x):
    return nn.mlp(params, x) * linear


w = np.ones((3, 2), np.float32)
b = np.array([-7.0, 1.0], np.float32)
layer2 = (np.ones((2, 2), np.float32), np.zeros(2, np.float32))
print("nn.mlp", dense(((w, b), layer2), x[None, :]).tolist())


@jit
def count_down(n):
    total = 0
    for i in range(n):
        total += i
    return total


print("count_down", count_down(5), count_down(10))


@jit
def total(x):
    return sum(scaled_sum(x) * scaled_sum(x))


print("grad through calls", dlm.grad(total)(x).tolist())


@jit
def cubed(x):
    return x * x * x


# Four threads make the first call at once: the module is made once, every result agrees.
results = [None] * 4
threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, cubed(x).tolist()))
           for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("4 threads", results[0], all(r == results[0] for r in results))
