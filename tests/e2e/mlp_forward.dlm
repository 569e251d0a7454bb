# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/mlp_forward.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# RUN: env DLM_NUM_THREADS=1 %dlm run --engine=graph %s > %t.one-thread
# RUN: env DLM_NUM_THREADS=4 %dlm run --engine=graph %s > %t.four-threads
# RUN: diff %t.out %t.one-thread
# RUN: diff %t.out %t.four-threads
# A two-layer MLP forward pass on small random data: seeded randn for inputs and weights (the
# twin reproduces dlm's Philox stream), matmul, broadcasting bias adds, relu, softmax,
# cross-entropy against integer labels, argmax predictions and accuracy. The output is the same
# bit for bit on 1, 2 and 4 executor threads.

def layer(x, w, b):
    return x @ w + b

def mlp(x, params):
    w1, b1, w2, b2 = params
    h = relu(layer(x, w1, b1))
    return layer(h, w2, b2)

seed(42)
x = randn(8, 4)
w1 = randn(4, 16) * 0.5
b1 = zeros(16)
w2 = randn(16, 3) * 0.5
b2 = tensor([0.1, -0.1, 0.0])
labels = tensor([0, 1, 2, 0, 1, 2, 0, 1]).astype(i64)
logits = mlp(x, (w1, b1, w2, b2))
probs = softmax(logits, axis=1)
print(logits)
print(sum(probs))
print(cross_entropy(logits, labels))
pred = argmax(logits, axis=1)
print(pred)
print(mean((pred == labels).astype(f32)))
