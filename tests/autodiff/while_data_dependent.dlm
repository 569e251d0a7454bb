# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/while_data_dependent.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# A while loop whose trip count depends on the data: the forward counts its iterations and
# stacks what the backward needs; the backward frame runs that many times, popping.

def f(x):
    while sum(x * x) < 100.0:
        x = x * 1.5 + sin(x)
    return sum(x * x)

print(grad(f)(tensor([1.0, 2.0, 0.5]).astype(f64)))
print(grad(f)(tensor([0.1, 0.2, 0.3]).astype(f64)))
