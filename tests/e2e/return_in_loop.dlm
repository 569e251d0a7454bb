# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/return_in_loop.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# return from inside for and while loops (sema's exit flags, then lowering's carried bools), in
# functions that are inlined into the caller's graph.

def first_above(x, limit):
    for i in range(len(x)):
        if x[i] > limit:
            return i
    return -1

def count_until(n, stop):
    c = 0
    while c < n:
        c += 1
        if c == stop:
            return c * 100
    return c

v = arange(4) + 0.5
print(first_above(v, 2.0), first_above(v, 9.0))
print(count_until(10, 4), count_until(3, 7))
