# RUN: cd %S && %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# data: the Fashion-MNIST reader, IDX and CSV loaders, batching (both engines must agree).
import data

x, y = data.fashion_mnist("test")
print(len(x), x.shape[1], len(y), min(x), max(x), y[0:5])
# CHECK: 10000 784 10000 tensor(0.) tensor(1.) tensor([9, 2, 1, 1, 6], dtype=i64)
print(data.num_batches(x, 128), data.batch(y, 2, 3))
# CHECK: 78 tensor([4, 6, 5], dtype=i64)
labels = data.load_idx("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz")
print(len(labels), labels[0:3])
# CHECK: 10000 tensor([9, 2, 1], dtype=i32)
t = data.load_csv("Inputs/small.csv")
print(t)
# CHECK: tensor({{\[\[}}1. , 2. ],
# CHECK-NEXT: [3. , 4.5]])
print(data.one_hot(tensor([2, 0]), 3))
# CHECK: tensor({{\[\[}}0., 0., 1.],
