# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/loop_with_if.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# An if inside a loop: its predicate is pushed on the loop's stack so the backward if of each
# backward iteration takes the side its forward iteration took.

def f(x):
    s = x
    for i in range(6):
        if sum(s) > 1.0:
            s = s * 0.7 + cos(s)
        else:
            s = exp(s) * 0.9
    return sum(s)

print(grad(f)(tensor([0.2, 0.5]).astype(f64)))
