"""Every @dlm.jit error is a dlm exception whose message points into this file, as dlm's
diagnostics do: a construct dlm's language does not have (at decoration), a name that means a
Python object (at decoration, or at the first call for a name bound later), dlm's own compile
errors (at the first call) and run-time errors (at the call). Each is printed with this
file's directory left out. Usage: jit_errors.py jit|graph
"""
import os
import sys

import numpy as np

import dlm

ENGINE = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
CONFIG = {"hidden": 8}
W = np.ones(3, np.float32)
HUGE = 2**64
x = np.array([1.0, 2.0, 3.0], np.float32)


def jit(f):
    return dlm.jit(f, engine=ENGINE)


def report(label, thunk):
    try:
        thunk()
        print(f"{label}: no error")
    except dlm.Error as e:
        print(f"{label}: {type(e).__name__} code {e.code}: {str(e).replace(HERE, '')}")


def helper(x):
    return x


def comprehension():
    @jit
    def f(x):
        return stack([x * i for i in range(3)])


def lambda_():
    @jit
    def f(x):
        g = lambda y: y * 2.0
        return g(x)


def nested_def():
    @jit
    def f(x):
        def g(y):
            return y
        return g(x)


def try_():
    @jit
    def f(x):
        try:
            return x
        except ValueError:
            return x


def raise_():
    @jit
    def f(x):
        raise ValueError("no")


def with_():
    @jit
    def f(x):
        with open("a") as g:
            return x


def global_():
    @jit
    def f(x):
        global W
        return x


def fstring():
    @jit
    def f(x):
        print(f"x is {x}")
        return x


def dict_():
    @jit
    def f(x):
        return {"x": x}


def is_():
    @jit
    def f(x):
        return x is x


def star_args():
    @jit
    def f(*xs):
        return xs


def none():
    @jit
    def f(x):
        return None


def walrus():
    @jit
    def f(x):
        return (y := x)


def for_else():
    @jit
    def f(x):
        for i in range(3):
            x = x + 1.0
        else:
            x = x * 2.0
        return x


def bit_or():
    @jit
    def f(x):
        return x | x


def numpy_call():
    @jit
    def f(x):
        return np.tanh(x) + 1.0


def dlm_call():
    @jit
    def f(x):
        return dlm.grad(x)


def python_dict():
    @jit
    def f(x):
        return x * CONFIG["hidden"]


def python_function():
    @jit
    def f(x):
        return helper(x)


def numpy_array():
    @jit
    def f(x):
        return x + W


def huge_int():
    @jit
    def f(x):
        return x * HUGE


for case in (comprehension, lambda_, nested_def, try_, raise_, with_, global_, fstring, dict_,
             is_, star_args, none, walrus, for_else, bit_or, numpy_call, dlm_call, python_dict,
             python_function, numpy_array, huge_int):
    report(case.__name__, case)


@jit
def later(x):
    return x + bound_later(x)


def bound_later(x):  # a plain Python function: an error at the first call of `later`
    return x


report("bound later", lambda: later(x))


@jit
def undefined(x):
    y = x * 2.0
    return y + hidden_size


report("undefined name", lambda: undefined(x))


@jit
def shapes(x):
    return x + zeros(4)


report("shapes", lambda: shapes(x))


@jit
def chained(x):
    return 0.0 < x < 1.0


report("syntax", lambda: chained(x))


@jit
def pick(x, i):
    return x[i]


report("pick ok", lambda: print(pick(x, 2)))
report("run time", lambda: pick(x, 7))
report("arity", lambda: pick(x))


def indented():
    @jit
    def f(x):
        return x @ x @ x

    return f


report("indented", lambda: indented()(x))


@jit
def doubled(x):
    return x * 2.0


report("grad of a non-scalar", lambda: dlm.grad(doubled)(x))
report("done", lambda: None)
