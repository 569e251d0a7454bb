"""Twin of mlp_forward.dlm: MLP 784-256-10 forward at batch 128 in PyTorch eager and
TorchScript, iteration `it` on batch `it % 8` of 8 random batches (as the dlm script), and the
bare GEMMs for the same shapes. Prints CPU ms per forward (best of 5 x 1000, process CPU time
as dlm's --time-passes reports it; threads as the environment sets them, see bench.py)."""
import time
import torch

torch.manual_seed(0)
xs = torch.randn(8, 128, 784)
w1 = torch.randn(784, 256) * 0.05
b1 = torch.zeros(256)
w2 = torch.randn(256, 10) * 0.05
b2 = torch.zeros(10)


def forward(x, w1, b1, w2, b2):
    h = torch.relu(x @ w1 + b1)
    return h @ w2 + b2


def gemms(x, w1, b1, w2, b2):
    return (x @ w1) @ w2


scripted = torch.jit.script(forward)


def best_ms(fn, reps=5, iters=1000):
    best = float("inf")
    for _ in range(reps):
        start = time.process_time()
        total = torch.zeros(())
        for it in range(iters):
            total = total + fn(xs[it % 8], w1, b1, w2, b2).sum()
        float(total)
        best = min(best, (time.process_time() - start) / iters * 1e3)
    return best


with torch.no_grad():
    scripted(xs[0], w1, b1, w2, b2)
    print("torch_eager_ms %.3f" % best_ms(forward))
    print("torchscript_ms %.3f" % best_ms(scripted))
    print("torch_gemm_only_ms %.3f" % best_ms(gemms))
