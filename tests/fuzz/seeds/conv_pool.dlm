# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# A seed of the whole-pipeline fuzzer (docs/testing.md "Fuzzing"): a small CNN written with the
# built-ins the other seeds do not use (conv2d with stride and padding, max_pool2d, avg_pool2d,
# NCHW reshapes), trained by hand with grad over a tuple of weights, so that mutants reach the
# convolution and pooling kernels, their gradients and the layout pass. Both engines agree.
# CHECK: step 0 loss
# CHECK: step 2 loss
# CHECK: accuracy
# CHECK: done

def forward(params, x):
    w1, b1, w2, wo = params
    h = relu(conv2d(x, w1, padding=1) + reshape(b1, 1, -1, 1, 1))
    h = max_pool2d(h, 2)
    h = tanh(conv2d(h, w2, stride=2))
    h = avg_pool2d(h, 1)
    return reshape(h, h.shape[0], -1) @ wo

def loss(params, x, y):
    return cross_entropy(forward(params, x), y)

seed(3)
x = randn(6, 2, 8, 8)
y = arange(6, dtype=i64) % 3
params = (randn(4, 2, 3, 3) * 0.3, zeros(4), randn(5, 4, 2, 2) * 0.3, randn(20, 3) * 0.2)
g = params * 0.0
for step in range(3):
    g = grad(loss)(params, x, y)
    params = params - 0.1 * g
    print("step", step, "loss", loss(params, x, y))
pred = argmax(forward(params, x), axis=1)
print("accuracy", mean((pred == y).astype(f32)))
print(sum(g[0], axis=(0, 1)), g[1].shape)
print("done")
