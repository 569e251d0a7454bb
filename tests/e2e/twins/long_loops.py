import numpy as np
from dlmref import dprint

dprint(sum(i % 7 for i in range(100000)))
dprint(sum(1 for i in range(300) for j in range(300) if (i + j) % 5 == 0))
x = np.zeros(4, np.float32)
step = (np.arange(4, dtype=np.float32) * np.float32(0.001)).astype(np.float32)
for k in range(1000):
    x = (x + step).astype(np.float32)
dprint(x)
