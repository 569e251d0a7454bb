"""Threads and the Python module dlm (tests/embed/python-threads.test).

1. The GIL is released while dlm runs: the main thread calls a def that reads a CSV file from a
   FIFO; opening a FIFO for reading blocks until a writer opens it, and the writer is another
   Python thread. The call can only return if that thread runs while dlm holds the main thread,
   so with the GIL held it would never return (the test's `timeout` fails it).
2. 16 threads call one callable at once, 40 calls each at batch sizes 1 to 4 (the first calls
   of each size race to compile it), every result checked against numpy.

Usage: python_threads.py MLP.dlm ENGINE FIFO_PATH
"""
import os
import sys
import threading

import numpy as np

import dlm

model, engine, fifo = sys.argv[1:4]

reader = dlm.loads("import data\n\ndef read(path: str):\n    return data.load_csv(path)\n",
                   engine=engine)
os.mkfifo(fifo)


def write_fifo():
    with open(fifo, "w") as f:  # blocks until dlm opens the FIFO for reading
        f.write("1,2\n3,4\n")


writer = threading.Thread(target=write_fifo)
writer.start()
table = reader.read(fifo)
writer.join()
print("read from the FIFO:", table.tolist())

m = dlm.load(model, engine=engine)


def data(n, salt):
    return (np.sin(np.arange(n) * 0.37 + salt).astype(np.float32) * np.float32(0.5))


w1, b1 = data(32, 1.0).reshape(4, 8), data(8, 2.0)
w2, b2 = data(24, 3.0).reshape(8, 3), data(3, 4.0)
x = data(16, 5.0).reshape(4, 4)


def reference(b):
    return np.maximum(x[:b] @ w1 + b1, 0) @ w2 + b2


THREADS, CALLS = 16, 40
failures = []
start = threading.Barrier(THREADS)


def worker(t):
    start.wait()
    for k in range(CALLS):
        b = (t + k) % 4 + 1
        got = m.predict(w1, b1, w2, b2, x[:b])
        if got.shape != (b, 3) or not np.allclose(got, reference(b), rtol=1e-5, atol=1e-6):
            failures.append((t, k, got))


threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for t, k, got in failures[:5]:
    print(f"thread {t} call {k}: {got}")
print(f"{THREADS * CALLS} calls on {THREADS} threads agree with numpy" if not failures else
      f"{len(failures)} calls differ")
sys.exit(1 if failures else 0)
