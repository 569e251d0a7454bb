"""Trains examples/embed/classifier.dlm from Python: numpy batches in, a dlm-compiled training
step (value_and_grad and the update, compiled once for the batch's types) called per batch, the
parameters kept as the numpy arrays the step returns. Saves the trained parameters by name.

Usage: train.py CLASSIFIER.dlm CHECKPOINT.safetensors   (the module `dlm` on PYTHONPATH:
build/python)
"""
import sys

import numpy as np

import dlm

CENTERS = np.array([[0.0, 2.0], [2.0, -1.0], [-2.0, -1.0]], dtype=np.float32)


def points(n, rng):
    """n points around the three centres, and their classes."""
    y = rng.integers(0, 3, size=n)
    x = CENTERS[y] + 0.6 * rng.standard_normal((n, 2)).astype(np.float32)
    return x.astype(np.float32), y.astype(np.int64)


def main(model, checkpoint):
    m = dlm.load(model)
    rng = np.random.default_rng(0)
    x, y = points(600, rng)
    params = m.init(7)
    batch = 50
    for epoch in range(4):
        order = rng.permutation(len(x))
        total = 0.0
        for i in range(0, len(x), batch):
            rows = order[i:i + batch]
            params, loss = m.train_step(params, x[rows], y[rows], 0.5)
            total += float(loss)
        print(f"epoch {epoch} loss {total / (len(x) // batch):.4f}")
    test_x, test_y = points(300, rng)
    accuracy = float((m.predict(params, test_x).argmax(axis=1) == test_y).mean())
    print(f"test accuracy {accuracy:.3f}")
    m.save_params(checkpoint, params)
    print("saved", ", ".join(f"{name} {list(p.shape)}" for name, p in
                             zip(("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"),
                                 (t for layer in params for t in layer))))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
