# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.out
# RUN: FileCheck %s < %t.out
# Data-parallel training with stdlib dist: every rank takes its shard of one global batch of 10
# rows (uneven at 4 ranks: 2, 3, 2, 3), the gradient of its shard's mean loss, and the
# count-weighted average of the ranks' gradients, so each step is the one a single process
# takes on the whole batch. This plain run is that single process; data-parallel.test runs the
# file at 2 and 4 ranks and compares the weights with this run's (docs/dist.md "Same answer").
import dist
import optim

def loss(params, x, y):
    w, b = params
    return mse(matmul(x, w) + b, y)

seed(0)
x = randn(10, 3, dtype=f64)
y = matmul(x, tensor([[1.0], [-2.0], [0.5]], dtype=f64)) + 0.25
params = (zeros(3, 1, dtype=f64), zeros(1, dtype=f64))
xs = dist.shard(x)
ys = dist.shard(y)
# The shards partition the batch: 10 rows in all, fewer than 10 on a rank when there are several.
assert allreduce(len(xs)) == 10 and (world_size() == 1 or len(xs) < 10), "shards"
for step in range(20):
    g = dist.weighted_average(grad(loss)(params, xs, ys), len(xs))
    params = optim.sgd(params, g, 0.1)
w, b = params
if dist.is_main():
    print("w", w.reshape(3))
    print("b", b)
    print("loss", loss(params, x, y))
# CHECK: w tensor([
# CHECK: b tensor([
# CHECK: loss tensor(
