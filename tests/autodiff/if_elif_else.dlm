# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/if_elif_else.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# if / elif / else: the elif is an if nested in the else side; three inputs take the three paths.

def f(x, w):
    s = sum(x * w)
    if s > 1.0:
        r = s * s
    elif s > -1.0:
        r = sin(s) * 2.0
    else:
        r = exp(s)
    return r

w = tensor([0.3, -0.2, 0.5]).astype(f64)
for k in range(3):
    x = tensor([1.0, 2.0, 3.0]).astype(f64) * (1.5 - k * 1.5)
    print(grad(f, argnums=(0, 1))(x, w))
