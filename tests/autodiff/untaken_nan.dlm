# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/untaken_nan.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# The untaken side of an if never runs in the backward either: log of a negative number and a
# division by zero on that side cannot put NaN or Inf into the gradient.

def f(x):
    if sum(x) > 0.0:
        y = log(x) + 1.0 / x
    else:
        y = x * 2.0
    return sum(y)

print(grad(f)(tensor([-1.0, 0.0, -2.0]).astype(f64)))
