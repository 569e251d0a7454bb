# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/return_in_loop.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# return from inside for and while loops (sema's exit flags, then lowering's carried bools), in
# functions that are inlined into the caller's graph. pair_product returns from a for loop inside
# another: both become while loops over hidden counters, one per loop (with one counter for both,
# the outer loop counted with the inner one's, an internal error 'invalid SSA: ... uses a value
# that is not defined before it'; found by the whole-pipeline fuzzer), and its gradient.

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

def pair_product(x, target: float):
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            if x[i] + x[j] > target:
                return x[i] * x[j]
    return sum(x) * 0.0

print(pair_product(v, 4.0), pair_product(v, 9.0), grad(pair_product)(v, 4.0))
