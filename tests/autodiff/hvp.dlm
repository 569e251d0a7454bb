# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/hvp.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# A Hessian-vector product as the gradient of <grad f(x), v>, through a while loop.

def f(x):
    i = 0
    while i < 3:
        x = tanh(x) + x * x * 0.1
        i += 1
    return sum(x * x)

def gv(x, v):
    return sum(grad(f)(x) * v)

x = tensor([0.5, -0.3, 0.8]).astype(f64)
v = tensor([1.0, 2.0, -1.0]).astype(f64)
print(grad(gv)(x, v))
