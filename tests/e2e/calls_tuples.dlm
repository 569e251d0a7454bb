# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/calls_tuples.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# Function calls (nested, with keyword arguments, returning tuples), tuple unpacking, tuple
# indexing, iteration over a tuple, and calls inside loops.

def stats(x):
    return mean(x), max(x), min(x)

def affine(x, scale=2.0, shift=1.0):
    return x * scale + shift

def swap(a, b):
    return b, a

x = tensor([[1.0, 2.0], [3.0, 4.0]])
m, hi, lo = stats(x)
print(m, hi, lo)
print(affine(x), affine(x, shift=-1.0), affine(x, 0.5, 0.0))
p, q = swap(3, 4)
print(p, q)
t = (x, affine(x), 7)
print(t[2], sum(t[1]))
total = 0.0
for part in (1.5, 2.5, 4.0):
    total += part
print(total)
acc = 0
for i in range(4):
    a, b = swap(i, acc)
    acc = a + b * 2
print(acc)
