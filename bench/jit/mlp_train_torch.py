"""Twin of mlp_train.dlm: MLP 784-256-10 at batch 128, cross-entropy, backward and SGD, in
PyTorch eager and with the loss in TorchScript, plus the GEMMs of one step alone (forward 2,
backward 3; bench.py's fair floor is mlp_gemm_ref, which makes dlm's exact sgemm calls). Prints
CPU ms per step (best of 5 x 50, process CPU time; threads as OMP_NUM_THREADS says, which
bench.py sets)."""
import time
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.rand(128, 784)
y = torch.arange(128) % 10


def loss(w1, b1, w2, b2, x, y):
    h = torch.relu(x @ w1 + b1)
    return F.cross_entropy(h @ w2 + b2, y)


scripted = torch.jit.script(loss)


def best_ms(fn, reps=5, iters=50):
    best = float("inf")
    for _ in range(reps):
        params = [torch.randn(784, 256) * 0.05, torch.zeros(256), torch.randn(256, 10) * 0.05, torch.zeros(10)]
        for p in params:
            p.requires_grad_(True)
        start = time.process_time()
        for _ in range(iters):
            grads = torch.autograd.grad(fn(*params, x, y), params)
            with torch.no_grad():
                params = [(p - 0.1 * g).requires_grad_(True) for p, g in zip(params, grads)]
        best = min(best, (time.process_time() - start) / iters * 1e3)
    return best


def gemms_ms(reps=5, iters=50):
    w1, w2 = torch.randn(784, 256), torch.randn(256, 10)
    g = torch.randn(128, 10)
    best = float("inf")
    with torch.no_grad():
        for _ in range(reps):
            start = time.process_time()
            for _ in range(iters):
                h = x @ w1
                h @ w2
                g @ w2.T
                (g.T @ h)
                x.T @ h
            best = min(best, (time.process_time() - start) / iters * 1e3)
    return best


print("torch_eager_ms %.3f" % best_ms(loss))
print("torchscript_ms %.3f" % best_ms(scripted))
print("torch_gemm_only_ms %.3f" % gemms_ms())
