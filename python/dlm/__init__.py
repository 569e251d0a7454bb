"""dlm from Python: call the defs of .dlm programs (docs/embedding.md "Python") and compile
Python functions written in dlm's language with @dlm.jit (docs/python.md).

    m = dlm.load("model.dlm")                 # or dlm.loads(text)
    y = m.predict(w, b, x)                    # numpy arrays in and out
    g = dlm.grad(m.loss, argnums=(0, 1))(w, b, x, y)

    @dlm.jit
    def step(x, h):
        return tanh(x @ h)

The extension dlm._dlm (python/DlmPython.cpp) is the C API underneath; this package adds
@dlm.jit (jit.py) and lets grad and value_and_grad take its functions.
"""
from ._dlm import (CompileError, Def, Error, ExecutionError, Function, InternalError,
                   InvalidArgumentError, IOError, Module, load, loads)
from . import _dlm
from .jit import JitFunction, jit


def _function_of(f):
    return f._dlm_function() if isinstance(f, JitFunction) else f


def grad(f, argnums=None):
    """grad(f, argnums): the gradient of the scalar result of a def or a @dlm.jit function
    with respect to the arguments argnums (default 0), as dlm's grad."""
    return _dlm.grad(_function_of(f), argnums)


def value_and_grad(f, argnums=None):
    """value_and_grad(f, argnums): (f's result, its gradient), as dlm's value_and_grad."""
    return _dlm.value_and_grad(_function_of(f), argnums)


__all__ = ["CompileError", "Def", "Error", "ExecutionError", "Function", "InternalError",
           "InvalidArgumentError", "IOError", "JitFunction", "Module", "grad", "jit", "load",
           "loads", "value_and_grad"]
