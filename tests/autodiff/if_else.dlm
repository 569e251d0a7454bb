# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/if_else.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# An if/else on a run-time value: the backward if runs on the same predicate, so each call
# differentiates only the side its forward took.

def f(x):
    if sum(x) > 0.0:
        y = sin(x) * x
    else:
        y = x * x * 3.0
    return sum(y)

x = tensor([0.5, -1.0, 2.0]).astype(f64)
print(grad(f)(x))
print(grad(f)(-x))
