# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/nested_loops.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# Nested loops (one frame inside another, the inner bound depending on the outer index), a
# while inside a for, and a tensor built up row by row from both indices.

pairs = 0
weighted = 0
for i in range(6):
    for j in range(i):
        pairs += 1
        weighted += i * j
print(pairs, weighted)

m = zeros(3, 4)
for i in range(3):
    for j in range(4):
        m = m + eye(3)[i].reshape(3, 1) * (arange(4) == j) * (i * 10 + j)
print(m)

digits = 0
for k in range(1, 5):
    x = k * 1000
    while x > 0:
        x = x // 7
        digits += 1
print(digits)
