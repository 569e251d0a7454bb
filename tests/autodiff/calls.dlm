# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/calls.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# Calls are inlined before differentiation: helpers calling helpers, one of them twice.

def sq(v):
    return v * v

def layer(w, v):
    return sigmoid(w * v + 0.5)

def f(w, x):
    return sum(sq(layer(w, x)) + layer(w, sq(x)))

print(grad(f, argnums=(0, 1))(tensor([0.3, -0.4]).astype(f64), tensor([1.5, 2.0]).astype(f64)))
