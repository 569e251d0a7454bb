# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# conv2d, max_pool2d and avg_pool2d of integer and bool tensors compute in f32 (the kernels pool
# and convolve floats; docs/language.md 11.3), and the compiler types them so. It used to type
# them in the input's dtype (i64), so what followed disagreed between the engines: the graph
# executor printed sum(conv2d(x, w)) of two i64 tensors as tensor(36.) and the JIT, reading the
# f32 buffer as the i64 the type promised, tensor(36, dtype=i64).

x = ones(1, 1, 4, 4, dtype=i64)
w = ones(1, 1, 3, 3, dtype=i64)
y = conv2d(x, w)
# CHECK: tensor(36.)
print(sum(y))
# CHECK-NEXT: tensor(4.)
print(y[0, 0, 1, 1] // 2)
b = reshape(arange(16), 1, 1, 4, 4) % 3 == 0
# CHECK-NEXT: tensor(12.)
print(sum(conv2d(b, w.astype(i32))))
# CHECK-NEXT: tensor(5.)
print(sum(max_pool2d(x, 2)) + 1)
# CHECK-NEXT: tensor(2.5)
print(sum(avg_pool2d(b, 2)) + 1)
# An integer input with f32 weights stays f32, a f64 kernel gives f64.
# CHECK-NEXT: tensor(36., dtype=f64)
print(sum(conv2d(x, w.astype(f64))))
