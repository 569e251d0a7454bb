# An AOT test program whose f32 results depend on FMA (tests/codegen/aot-fma-dispatch.test).
# f32 tanh rounds differently with FMA and without, and the steps of x = tanh(x @ a) carry
# that to the printed digits: first in generated loops (static shapes), then through the
# runtime's `fused` kernel, which calls the elementwise kernels (the bias broadcasts along a
# symbolic dimension, so the body is not emitted inline). The softmax runs the NN kernels.
seed(3)
a = randn(64, 64) * 0.2
c = randn(64, 64)
for i in range(40):
    c = tanh(c @ a)
print(sum(c))
n = 60
m = 0
for i in range(3):
    n = n + 1
    m = m + i % 2
k = randn(n - 50, 64)
bias = zeros(m)
for i in range(40):
    k = tanh(k @ a + bias)
print(sum(k))
print(sum(softmax(c @ a * 4.0, 1) * c))
