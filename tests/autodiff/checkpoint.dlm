# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/checkpoint.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# checkpoint(f): the gradient is the same as without it (f is recomputed in the backward).

def block(w, h):
    for i in range(3):
        h = sin(w * h) + h
    return h

def f(w, x):
    h = x
    for k in range(4):
        h = checkpoint(block)(w, h)
    return sum(h * h)

def plain(w, x):
    h = x
    for k in range(4):
        h = block(w, h)
    return sum(h * h)

w = tensor([0.3, -0.2]).astype(f64)
x = tensor([1.0, 0.5]).astype(f64)
print(grad(f, argnums=(0, 1))(w, x))
print(grad(plain, argnums=(0, 1))(w, x))
