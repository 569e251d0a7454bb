# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/continue.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# continue skips the rest of an iteration on odd i: the skipped iterations contribute nothing.

def f(x):
    s = x * 0.0
    for i in range(7):
        if i % 2 == 1:
            continue
        s = s + sin(x * i)
    return sum(s)

print(grad(f)(tensor([0.3, 0.7]).astype(f64)))
