# Elementwise chains that fuse at -O2/-O3 (tests/codegen/fusion-engines.test): broadcasting,
# mixed dtypes, 0-d values, empty tensors, views, in-place updates, and a gradient program whose
# differentiated graph fuses too. Saves every result to fused.st in the working directory.
seed(3)
x = randn(33, 17) * 8.0
b = randn(17)
c = randn(33, 1)
# f32 transcendental chain with row and column broadcasts.
t1 = tanh(x * 0.5 + b) - sigmoid(c) * exp(x * 0.25) + sigmoid(x) * tanh(c)
# f64 and integer inputs promoted inside the chain.
x64 = x.astype(f64)
t2 = sigmoid(x64 * 0.3) + tanh(x64) * 2.0 - exp(x64 * 0.05) + log(abs(x64) + 1.0) + sqrt(abs(x64))
k = (x * 3.0).astype(i64)
t3 = (k * 2 + 7) * k - k
t4 = k * 0.5 + x
# Comparisons, where, maximum/minimum, clip, bools.
t5 = where(x > c, x * 2.0, b - 1.0) + maximum(x, c) - minimum(x, 0.5) + clip(x, -1.0, 2.0)
t6 = (x > 0.0) == (c < 0.0)
# 0-d values: the chain stays in registers. (f32 0-d operands only: a Python float literal
# meeting a 0-d f32 tensor is typed f32 but computed in f64 by the executor's kernels.)
s = sum(x * 0.001)
u = sum(b)
t7 = tanh(s) * exp(u) + sigmoid(s) - u
# Empty tensors: a loop of no iterations, the output still has its shape.
e = zeros(0, 17)
t8 = tanh(e * 2.0 + b) + 1.0
# A view (a transposed tensor) read by a chain: copied dense first.
t9 = relu(x.T * 2.0 - 1.0) + 0.5
# An in-place update in a loop.
acc = zeros(33, 17)
i = 0
while i < 5:
    acc = acc * 0.9 + tanh(x) * 0.1
    i += 1
# A gradient: fusion runs on the differentiated graph.
def loss(w, x):
    h = tanh(x @ w + 0.5)
    return sum(sigmoid(h) * h - h * 0.25)
gw = grad(loss)(randn(17, 5), x)
print(t1[0, 0:4], t2[1, 0:3], t3[2, 0:5], t7, t8.shape, t9[0, 0:3], acc[3, 0:3], gw[0])
save("fused.st", (t1, t2, t3, t4, t5, t6, t7, t8, t9, acc, gw))
