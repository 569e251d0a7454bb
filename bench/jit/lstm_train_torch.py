"""Twin of lstm_train.dlm: LSTM cell in a while loop, hidden 32, 100 steps, forward + backward
+ SGD, in PyTorch eager and with the forward in TorchScript. Prints CPU ms per training
iteration (best of 3 x 20, one thread, process CPU time)."""
import time
import torch

torch.set_num_threads(1)


def loss(wx, wh, b, wo, xs):
    h = torch.zeros(1, 32)
    c = torch.zeros(1, 32)
    t = 0
    while t < 100:
        z = xs[t] @ wx + h @ wh + b
        i = torch.sigmoid(z[:, 0:32])
        f = torch.sigmoid(z[:, 32:64])
        g = torch.tanh(z[:, 64:96])
        o = torch.sigmoid(z[:, 96:128])
        c = f * c + i * g
        h = o * torch.tanh(c)
        t += 1
    return (h @ wo).sum()


scripted = torch.jit.script(loss)


def best_ms(fn, reps=3, iters=20):
    torch.manual_seed(0)
    xs = torch.randn(100, 1, 8)
    best = float("inf")
    for _ in range(reps):
        params = [torch.randn(8, 128) * 0.1, torch.randn(32, 128) * 0.1, torch.zeros(128), torch.randn(32, 1) * 0.1]
        for p in params:
            p.requires_grad_(True)
        start = time.process_time()
        for _ in range(iters):
            grads = torch.autograd.grad(fn(*params, xs), params)
            with torch.no_grad():
                params = [(p - 0.01 * g).requires_grad_(True) for p, g in zip(params, grads)]
        best = min(best, (time.process_time() - start) / iters * 1e3)
    return best


print("torch_eager_ms %.3f" % best_ms(loss))
print("torchscript_ms %.3f" % best_ms(scripted))
