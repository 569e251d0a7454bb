# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/nested_loops.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# Three nested loops, the inner bounds depending on the outer indices: each inner loop's stacks
# and trip count travel on the enclosing loop's stacks.

def f(x):
    s = x
    for i in range(3):
        for j in range(i + 1):
            k = 0
            while k < j:
                s = sin(s) + x * 0.5
                k += 1
            s = s * 1.1
    return sum(s)

print(grad(f)(tensor([1.0, 2.0, 3.0]).astype(f64)))
