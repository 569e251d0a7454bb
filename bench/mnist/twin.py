#!/usr/bin/python3
"""PyTorch twin of examples/fashion_mnist_mlp.dlm (bench/RESULTS.md "Fashion-MNIST MLP").

    bench/mnist/twin.py [INIT.safetensors] [--epochs N] [--threads T]

The same model (784-256-relu-10), the same data in the same order (Debian's Fashion-MNIST IDX
files, pixels / 255, 468 whole batches of 128 per epoch, each epoch in the order of the example's
data.shuffle: randperm on dlm's Philox stream, reproduced with tests/e2e/twins/dlmref.py), the same optimiser
(Adam, lr 0.002 * 0.7 ** epoch, betas 0.9 / 0.999, eps 1e-8) and the same initial weights, read
from the safetensors file the dlm example writes (fashion_mnist_mlp.init.safetensors: tensors
"0".."3" = w1 [784, 256], b1, w2 [256, 10], b2). Prints the same lines as the example plus the
seconds each epoch took.
"""
import argparse
import gzip
import os
import struct
import time

import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "e2e", "twins"))
from dlmref import philox4x32  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers"))
from workloads import common as safetensors  # noqa: E402

DATA = os.environ.get("DLM_DATA", "/usr/share/datasets/fashion-mnist")


def read_idx(name):
    with gzip.open(os.path.join(DATA, name)) as f:
        raw = f.read()
    dims = raw[3]
    shape = struct.unpack(">" + "I" * dims, raw[4:4 + 4 * dims])
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def fashion_mnist(split):
    prefix = "train" if split == "train" else "t10k"
    x = read_idx(prefix + "-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32) / 255.0
    y = read_idx(prefix + "-labels-idx1-ubyte.gz").astype(np.int64)
    return torch.from_numpy(x), torch.from_numpy(y)


def read_safetensors(path):
    """The tensors of a safetensors file, in the order of their names."""
    return [torch.from_numpy(a) for a in safetensors.read_safetensors(path)]


def dlm_randperm(n, key, start):
    """dlm's randperm(n) drawing from counter `start` of the stream keyed by `key` (docs/ops.md):
    Fisher-Yates from the last position, one word per swap. Returns (perm, next counter)."""
    perm = np.arange(n)
    words = []
    for c in range(start, start + (n - 1 + 3) // 4):
        words.extend(philox4x32(c, key))
    for k, i in enumerate(range(n - 1, 0, -1)):
        j = (words[k] * (i + 1)) >> 32
        perm[i], perm[j] = perm[j], perm[i]
    return perm, start + (n - 1 + 3) // 4


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("init", nargs="?", default="fashion_mnist_mlp.init.safetensors")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    x_train, y_train = fashion_mnist("train")
    x_test, y_test = fashion_mnist("test")
    params = [p.requires_grad_() for p in read_safetensors(args.init)]
    w1, b1, w2, b2 = params
    opt = torch.optim.Adam(params, lr=0.002, betas=(0.9, 0.999), eps=1e-8)

    def model(x):
        return torch.relu(x @ w1 + b1) @ w2 + b2

    batches = len(x_train) // 128
    # The example's stream after seed(0) and init_mlp's two randn calls (784 * 256 and 256 * 10
    # normals, four per counter).
    counter = (784 * 256 + 3) // 4 + (256 * 10 + 3) // 4
    for epoch in range(args.epochs):
        order, counter = dlm_randperm(len(x_train), 0, counter)
        x_epoch, y_epoch = x_train[order], y_train[order]
        for g in opt.param_groups:
            g["lr"] = 0.002 * 0.7 ** epoch
        start = time.perf_counter()
        for i in range(batches):
            x = x_epoch[i * 128:(i + 1) * 128]
            y = y_epoch[i * 128:(i + 1) * 128]
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        seconds = time.perf_counter() - start
        with torch.no_grad():
            acc = (model(x_test).argmax(1) == y_test).float().mean().item()
        print("epoch", epoch + 1, "accuracy", round(acc, 4), "seconds %.2f" % seconds, flush=True)


if __name__ == "__main__":
    main()
