# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.out
# RUN: %python %S/twins/nan_propagation.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: FileCheck %s < %t.out
# RUN: %dlmc %s -o %t.exe
# RUN: %t.exe > %t.aot
# RUN: %python %S/twins/compare.py %t.aot %t.ref
# NaN through every op that compares by max or min, against PyTorch, on both engines at -O0 and
# -O3 (fused elementwise code and matmul_bias {relu}) and in an AOT executable. relu(NaN) was 0
# everywhere (kernel, JIT, fused epilogues: `x > 0 ? x : 0`); PyTorch gives NaN, and -0.0 stays
# -0.0. relu's gradient passes g at a NaN (x <= 0 ? 0 : g, PyTorch's threshold_backward), where it
# gave 0. logsumexp of a row holding NaN gave inf or -inf when the row's max ignored the NaN.
# maximum, minimum, clip, max, min, argmax, softmax, log_softmax and max_pool2d already agreed.

inf = exp(tensor(1000.0))
nan = inf - inf
first = tensor([True, False, False, False])
x = where(first, nan, tensor([1.5, -2.0, 0.0, 3.0]))

print(relu(x))
# CHECK: tensor([nan, 0., 0., 3.])
print(relu(x.astype(f64)))
print(relu(-zeros(3)))
# CHECK: tensor([-0., -0., -0.])
print(relu(x * 2.0 + 1.0) * 3.0)
# CHECK-NEXT: tensor([nan, 0., 3., 21.])

def weighted(v):
    return sum(relu(v) * tensor([1.0, 2.0, 3.0, 4.0]))

print(grad(weighted)(x))
# CHECK-NEXT: tensor([1., 0., 0., 4.])
print(grad(weighted)(x.astype(f64)))

# relu(a @ w + b) is matmul_bias {relu = true} at -O3: the small-product path (2 rows: its
# vector epilogue over 16 columns), OpenBLAS with a row bias, and with a column bias (strided).
b16 = where(arange(16) == 3, nan, where(arange(16) == 5, -10.0, zeros(16)))
print(relu(ones(2, 8) @ ones(8, 16) + b16))
print(relu(ones(64, 64) * 0.01 @ ones(64, 16) + b16)[0])
col = where(arange(64) == 1, nan, where(arange(64) == 2, -10.0, zeros(64)))
print(relu(ones(64, 64) * 0.01 @ ones(64, 16) + reshape(col, 64, 1))[0:3, 0:2])

print(maximum(x, 0.5), minimum(x, 0.5), clip(x, -1.0, 1.0))
print(max(x), min(x), argmax(x), argmax(where(first, 0.0, x)))
print(softmax(x), log_softmax(x))
print(logsumexp(x), logsumexp(where(first, nan, inf)), logsumexp(where(first, nan, -inf)))
print(logsumexp(reshape(nan, 1)))
print(max_pool2d(reshape(x, 1, 1, 2, 2), 2))
