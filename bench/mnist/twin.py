#!/usr/bin/python3
"""PyTorch twin of examples/fashion_mnist_mlp.dlm (bench/RESULTS.md "Fashion-MNIST MLP").

    bench/mnist/twin.py [INIT.safetensors] [--epochs N] [--threads T]

The same model (784-256-relu-10), the same data in the same order (Debian's Fashion-MNIST IDX
files, pixels / 255, no shuffling, 468 whole batches of 128 per epoch), the same optimiser
(Adam, lr 0.002 * 0.7 ** epoch, betas 0.9 / 0.999, eps 1e-8) and the same initial weights, read
from the safetensors file the dlm example writes (fashion_mnist_mlp.init.safetensors: tensors
"0".."3" = w1 [784, 256], b1, w2 [256, 10], b2). Prints the same lines as the example plus the
seconds each epoch took.
"""
import argparse
import gzip
import json
import os
import struct
import time

import numpy as np
import torch

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
    """The tensors of a safetensors file (F32 only), in the order of their names."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    out = []
    for name in sorted(header, key=int):
        meta = header[name]
        assert meta["dtype"] == "F32", meta
        a, b = meta["data_offsets"]
        arr = np.frombuffer(raw[8 + n + a:8 + n + b], dtype=np.float32).reshape(meta["shape"])
        out.append(torch.from_numpy(arr.copy()))
    return out


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
    for epoch in range(args.epochs):
        for g in opt.param_groups:
            g["lr"] = 0.002 * 0.7 ** epoch
        start = time.perf_counter()
        for i in range(batches):
            x = x_train[i * 128:(i + 1) * 128]
            y = y_train[i * 128:(i + 1) * 128]
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
