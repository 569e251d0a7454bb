# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/value_and_grad.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# value_and_grad returns the value and the gradient; argnums picks the second argument.

def f(a, b):
    return sum(exp(a) * b) + sum(b * b)

a = tensor([0.1, 0.2]).astype(f64)
b = tensor([1.0, -1.0]).astype(f64)
v, g = value_and_grad(f, argnums=1)(a, b)
print(v)
print(g)
