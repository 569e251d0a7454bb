# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/stop_gradient.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# stop_gradient(x) is x in the forward and a constant in the backward.

def f(x):
    return sum(x * stop_gradient(x * x) + stop_gradient(sin(x)))

print(grad(f)(tensor([0.5, 2.0]).astype(f64)))
