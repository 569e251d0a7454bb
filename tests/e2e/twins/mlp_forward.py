import numpy as np
import torch
from dlmref import Rng, dprint

rng = Rng(42)
x = rng.randn(8, 4)
w1 = rng.randn(4, 16) * np.float32(0.5)
b1 = np.zeros(16, np.float32)
w2 = rng.randn(16, 3) * np.float32(0.5)
b2 = np.array([0.1, -0.1, 0.0], np.float32)
labels = np.array([0, 1, 2, 0, 1, 2, 0, 1], np.int64)
h = np.maximum(x @ w1 + b1, 0)
logits = (h @ w2 + b2).astype(np.float32)
probs = torch.softmax(torch.from_numpy(logits), dim=1).numpy()
dprint(logits)
dprint(probs.sum())
dprint(np.float32(torch.nn.functional.cross_entropy(torch.from_numpy(logits), torch.from_numpy(labels)).item()))
pred = logits.argmax(axis=1)
dprint(pred)
dprint(np.float32((pred == labels).astype(np.float32).mean()))
