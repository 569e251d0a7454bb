"""Twin of adds.dlm: 1000 adds on a 1-element tensor in PyTorch, eager and TorchScript.
Prints CPU ns per add for each (best of 5 runs of 200 x 1000 adds, one thread, process CPU
time as dlm's --time-passes reports it)."""
import time
import torch

torch.set_num_threads(1)


def eager(x):
    for _ in range(1000):
        x = x + 1.0
    return x


scripted = torch.jit.script(eager)


def best_ns_per_add(fn, reps=5, outer=200):
    best = float("inf")
    for _ in range(reps):
        x = torch.zeros(1)
        start = time.process_time()
        for _ in range(outer):
            x = fn(x)
        best = min(best, (time.process_time() - start) / (outer * 1000) * 1e9)
    return best


with torch.no_grad():
    scripted(torch.zeros(1))  # compile and warm up
    print("torch_eager_ns_per_add %.1f" % best_ns_per_add(eager))
    print("torchscript_ns_per_add %.1f" % best_ns_per_add(scripted))
