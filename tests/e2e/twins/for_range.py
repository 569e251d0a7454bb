import numpy as np
from dlmref import dprint

dprint(sum(i * i for i in range(10)))
dprint(sum(range(3, 20, 4)))
down = 0
for i in range(10, 0, -3):
    down = down * 10 + i
dprint(down)
dprint(5 + sum(100 for _ in range(4, 2)))
v = np.arange(5, dtype=np.float32)
acc = np.zeros(5, np.float32)
for i in range(len(v)):
    acc = acc + v * i
dprint(acc)
