#!/usr/bin/python3
"""PyTorch twin of examples/fashion_mnist_cnn.dlm (bench/RESULTS.md "Fashion-MNIST CNN").

    bench/mnist/cnn_twin.py [--epochs N] [--lr LR] [--decay D] [--batch B] [--shuffle]

The same model (conv5x5 1->16 pad 2, relu, max-pool 2, conv5x5 16->32 pad 2, relu, max-pool 2,
linear 1568->10), PyTorch's default initialisation (not the example's weights: this script is
for choosing hyperparameters and for a time reference), Adam with lr * decay ** epoch, whole
batches in file order or, with --shuffle, a new permutation each epoch. Prints the test accuracy
and the CPU seconds of each epoch.
"""
import argparse
import time

import torch

from twin import fashion_mnist


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--decay", type=float, default=1.0)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--shuffle", action="store_true")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    x_train, y_train = fashion_mnist("train")
    x_test, y_test = fashion_mnist("test")
    x_train = x_train.reshape(-1, 1, 28, 28)
    x_test = x_test.reshape(-1, 1, 28, 28)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 5, padding=2), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 5, padding=2), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(32 * 7 * 7, 10))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    batches = len(x_train) // args.batch
    for epoch in range(args.epochs):
        for g in opt.param_groups:
            g["lr"] = args.lr * args.decay ** epoch
        order = torch.randperm(len(x_train)) if args.shuffle else torch.arange(len(x_train))
        start = time.process_time()
        for i in range(batches):
            rows = order[i * args.batch:(i + 1) * args.batch]
            loss = torch.nn.functional.cross_entropy(model(x_train[rows]), y_train[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
        seconds = time.process_time() - start
        with torch.no_grad():
            acc = (model(x_test).argmax(1) == y_test).float().mean().item()
        print("epoch", epoch + 1, "accuracy", round(acc, 4), "cpu seconds %.1f" % seconds,
              flush=True)


if __name__ == "__main__":
    main()
