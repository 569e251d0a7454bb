# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/early_return.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# return from inside a loop and from one side of an if (sema's exit flags).

def f(x):
    s = x
    i = 0
    while i < 50:
        s = s * 1.2 + 0.1
        if sum(s) > 10.0:
            return sum(s * x)
        i += 1
    return sum(s)

def g(x):
    if sum(x) < 0.0:
        return sum(exp(x))
    return sum(x * x * x)

print(grad(f)(tensor([0.5, 1.0]).astype(f64)))
print(grad(g)(tensor([0.5, 1.0]).astype(f64)))
print(grad(g)(tensor([-0.5, 0.1]).astype(f64)))
