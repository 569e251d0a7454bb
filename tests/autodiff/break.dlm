# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/break.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# break inside a for loop: the loop leaves when a data-dependent condition holds.

def f(x):
    s = x
    for i in range(100):
        s = tanh(s) * 1.3 + x * 0.2
        if sum(s) > 3.0:
            break
    return sum(s * s)

print(grad(f)(tensor([0.5, 0.4, 0.3]).astype(f64)))
