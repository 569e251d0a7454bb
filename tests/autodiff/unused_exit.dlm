# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/unused_exit.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# A loop computing two values of which only one reaches the output: the unused loop exit
# gets zeros, and its other loop variable gets no gradient ops at all.

def f(x):
    a = x
    b = x
    for i in range(3):
        a = a * 1.5
        b = exp(b)
    return sum(a)

print(grad(f)(tensor([0.2, 0.4]).astype(f64)))
