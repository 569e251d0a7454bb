import numpy as np
from dlmref import dprint

x = np.array([3.0, 4.0, 12.0], np.float32)
steps = 0
while np.linalg.norm(x) > 1.0:
    x = (x * np.float32(0.5)).astype(np.float32)
    steps += 1
dprint(steps, x)

n, count = 27, 0
while n != 1:
    n = n // 2 if n % 2 == 0 else 3 * n + 1
    count += 1
dprint("collatz", count)
