# MLP 784-256-10 forward at batch 128, 100 iterations: GEMM-bound (the JIT calls OpenBLAS).
# bench/jit/bench.py divides the run time by 100. Twin: mlp_forward_torch.py.
seed(0)
x = randn(128, 784)
w1 = randn(784, 256) * 0.05
b1 = zeros(256)
w2 = randn(256, 10) * 0.05
b2 = zeros(10)
total = sum(zeros(1))
for it in range(100):
    h = relu(x @ w1 + b1)
    logits = h @ w2 + b2
    total = total + sum(logits)
print(total)
