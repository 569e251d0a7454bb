import numpy as np
from dlmref import dprint

dprint("hello", 42, 2.5, True, False)
dprint(0.1, 1e-05, 3.0, -7, 1.0 / 3.0)
dprint(np.array([1.0, 2.5, -3.0], np.float32))
dprint(np.array([[1, 2], [3, 4]], np.int64))
dprint(np.arange(6, dtype=np.float32).reshape(2, 3).astype(np.float64))
dprint(np.array([1.0, 2.0], np.float32) > 1.5)
dprint(np.zeros((2, 2, 2), np.float32))
for i in range(3):
    dprint("iteration", i)
    if i == 1:
        dprint("  middle")
dprint("end")
