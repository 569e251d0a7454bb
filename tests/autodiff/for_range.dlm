# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/for_range.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# A for loop over range(n) with n a run-time int: a polynomial built by Horner's rule.

def f(x, n: int):
    s = x
    for i in range(n):
        s = s * x + 1.0 / (i + 1.0)
    return sum(s)

x = tensor([0.5, -1.5, 2.0]).astype(f64)
print(grad(f)(x, 4))
print(grad(f)(x, 0))
