import numpy as np
from dlmref import dprint

pairs = sum(1 for i in range(6) for j in range(i))
weighted = sum(i * j for i in range(6) for j in range(i))
dprint(pairs, weighted)
m = np.zeros((3, 4), np.float32)
for i in range(3):
    for j in range(4):
        m[i, j] = i * 10 + j
dprint(m)
digits = 0
for k in range(1, 5):
    x = k * 1000
    while x > 0:
        x //= 7
        digits += 1
dprint(digits)
