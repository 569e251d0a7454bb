# MLP 784-256-10 forward at batch 128, 1000 iterations (GEMM-bound: the JIT calls OpenBLAS).
# Iteration `it` reads batch `it % 8` of 8 random batches, so no iteration is loop invariant
# (licm cannot hoist the forward pass out of the timing loop, as it did when every iteration
# read the same x), and the running total makes every iteration's logits needed.
# bench/jit/bench.py takes the run time per iteration, less that of the same script with 0
# iterations (making the batches and weights). Twin: mlp_forward_torch.py.
seed(0)
xs = randn(8, 128, 784)
w1 = randn(784, 256) * 0.05
b1 = zeros(256)
w2 = randn(256, 10) * 0.05
b2 = zeros(10)
total = sum(zeros(1))
for it in range(1000):
    h = relu(xs[it % 8] @ w1 + b1)
    logits = h @ w2 + b2
    total = total + sum(logits)
print(total)
