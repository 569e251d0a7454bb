# MLP 784-256-10, batch 128: forward, cross-entropy, backward and SGD step, 200 iterations
# (GEMM-bound). bench/jit/bench.py takes the run time per iteration, less that of the same
# script with 0 iterations (making the data and weights, the final loss), and compares it with
# the five sgemm calls of one step alone (mlp_gemm_ref). Twin: mlp_train_torch.py.
def loss(w1, b1, w2, b2, x, y):
    h = relu(x @ w1 + b1)
    return cross_entropy(h @ w2 + b2, y)

seed(0)
x = rand(128, 784)
y = (arange(128) % 10).astype(i64)
w1 = randn(784, 256) * 0.05
b1 = zeros(256)
w2 = randn(256, 10) * 0.05
b2 = zeros(10)
for it in range(200):
    g1, gb1, g2, gb2 = grad(loss, argnums=(0, 1, 2, 3))(w1, b1, w2, b2, x, y)
    w1 = w1 - 0.1 * g1
    b1 = b1 - 0.1 * gb1
    w2 = w2 - 0.1 * g2
    b2 = b2 - 0.1 * gb2
print(loss(w1, b1, w2, b2, x, y))
