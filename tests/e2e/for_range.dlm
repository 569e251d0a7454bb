# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/for_range.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# for-range loops: one, two and three arguments, a negative step, an empty range, a bound
# computed at run time, and a loop that accumulates a tensor.

total = 0
for i in range(10):
    total += i * i
print(total)
s = 0
for i in range(3, 20, 4):
    s += i
print(s)
down = 0
for i in range(10, 0, -3):
    down = down * 10 + i
print(down)
empty = 5
for i in range(4, 2):
    empty += 100
print(empty)
v = arange(5)
n = len(v)
acc = zeros(5)
for i in range(n):
    acc = acc + v * i
print(acc)
