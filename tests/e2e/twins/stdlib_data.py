"""Twin of stdlib_data.dlm: the IDX files read with gzip + NumPy as the format describes (a
big-endian header: magic, then one u32 per dimension, then u8 data), the CSV with
numpy.loadtxt, shuffles with dlm's randperm stream (dlmref), one-hot rows with
torch.nn.functional.one_hot."""
import gzip

import numpy as np
import torch
from dlmref import Rng, dprint

FOLDER = "/usr/share/datasets/fashion-mnist/"


def read_idx(name):
    raw = gzip.open(FOLDER + name).read()
    rank = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(rank)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * rank).reshape(dims)


def fashion_mnist(split):
    prefix = "t10k" if split == "test" else "train"
    images = read_idx(prefix + "-images-idx3-ubyte.gz")
    labels = read_idx(prefix + "-labels-idx1-ubyte.gz")
    return (images.reshape(len(images), -1) / np.float32(255)).astype(np.float32), labels.astype(np.int64)


rng = Rng(0)



x, y = fashion_mnist("test")
dprint(len(x), x.shape[1], len(y), y[0:12])
dprint(x[0, 380:392], x[9999, 150:156], x[17].sum(dtype=np.float32), x[17].max())
xt, yt = fashion_mnist("train")
dprint(len(xt), yt[59988:60000], xt[59999, 500:506], yt.sum())

imgs = read_idx("t10k-images-idx3-ubyte.gz").astype(np.int32)
dprint(*imgs.shape, imgs[3, 14, 10:20])

t = np.loadtxt("Inputs/stdlib.csv", delimiter=",", skiprows=1, dtype=np.float32)
dprint(t.shape[0], t.shape[1], t)
dprint(np.loadtxt("Inputs/stdlib.csv", delimiter=",", skiprows=1, dtype=np.float64)[2])

dprint(len(x) // 128, len(x) // 3, y[15:20], x[14:16][1, 300:304])

rng.seed(11)
order = rng.randperm(len(x))
dprint(y[order][0:10], x[order][4, 380:386])
dprint(t[rng.randperm(len(t))])
dprint(torch.nn.functional.one_hot(torch.from_numpy(y[0:4]), 10).numpy().astype(np.float32))
