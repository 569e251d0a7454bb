# RUN: %dlmc --emit=llvm -O2 %s | FileCheck %s --check-prefix=IR
# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# RUN: %dlmc %s -o %t.exe
# RUN: %t.exe | FileCheck %s
# matmul_bias accumulating into its addend (docs/runtime.md "In place"): the engines write the
# sum over the addend only when nothing else can read it. The values are small integers, so
# every result is exact and the printed values show whether an addend that is still live was
# overwritten: the kept old accumulator (prev), an addend printed after the product, and an
# accumulator the gradient saves on its stack (the backward pass reads every step's value) must
# keep their values. Both engines at -O0 and -O3 agree (dlm-diff), and an AOT executable prints
# the same. The IR calls dlm_matmul_bias_accumulate only where the addend's one reader is the
# matmul_bias (the first loop and the gradient loop), dlm_kernel_run where it is not.

seed(0)
noise = randn(4, 3)
xs = reshape(arange(12, dtype=f32), 4, 3) + 0.0 * noise
ys = reshape(arange(8, dtype=f32), 4, 2) + 0.0 * noise[:, 0:2]

# A gradient-style accumulator: updated in place.
acc = zeros(3, 2)
i = 0
while i < 4:
    acc = acc + transpose(xs[i:i + 1]) @ ys[i:i + 1]
    i += 1
print(acc)
# CHECK: {{\[\[}} 84., 102.],
# CHECK-NEXT: [ 96., 118.],
# CHECK-NEXT: [108., 134.]]

# The old accumulator is kept (prev): it must not be overwritten.
acc = zeros(3, 2)
prev = acc
i = 0
while i < 4:
    prev = acc
    acc = transpose(xs[i:i + 1]) @ ys[i:i + 1] + acc
    i += 1
print(prev)
print(acc)
# CHECK: {{\[\[}}30., 39.],
# CHECK-NEXT: [36., 48.],
# CHECK-NEXT: [42., 57.]]
# CHECK: {{\[\[}} 84., 102.],
# CHECK-NEXT: [ 96., 118.],
# CHECK-NEXT: [108., 134.]]

# Straight-line code: the addend is printed after the product.
b0 = xs[1:4, 0:2] * 1.0
c0 = transpose(xs[0:1]) @ ys[0:1] + b0
print(b0)
print(c0)
# CHECK: {{\[\[}} 3.,  4.],
# CHECK-NEXT: [ 6.,  7.],
# CHECK-NEXT: [ 9., 10.]]
# CHECK: {{\[\[}} 3.,  4.],
# CHECK-NEXT: [ 6.,  8.],
# CHECK-NEXT: [ 9., 12.]]

# The accumulator is saved for the gradient of acc * acc (a stack entry of every step): the
# next step's accumulate must leave the saved value alone. PyTorch (f64): 207632 and
# [[32096, 199608]].
def f(w, xs, ys):
    a = zeros(3, 2)
    s = sum(zeros(1))
    j = 0
    while j < 4:
        a = transpose(xs[j:j + 1]) @ (ys[j:j + 1] * w) + a
        s = s + sum(a * a)
        j += 1
    return s

w = ones(1, 2) * 0.5 + reshape(arange(2, dtype=f32), 1, 2) * 1.5
print(f(w, xs, ys))
print(grad(f)(w, xs, ys))
# CHECK: 207632.
# CHECK: {{\[\[}} 32096., 199608.]]

# IR-LABEL: define {{.*}}@dlm_main
# IR: call ptr @dlm_matmul_bias_accumulate
# IR: call ptr @dlm_kernel_run
