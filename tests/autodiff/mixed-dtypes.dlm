# RUN: dlm-ad run %s > %t.out
# RUN: FileCheck %s < %t.out
# RUN: %python %S/twins/mixed_dtypes.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: FileCheck %s < %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# Gradients through ops whose operands have different dtypes (docs/autodiff.md "Dtypes"): the
# backward computes in the dtype the forward promoted to and each gradient has its operand's
# dtype. conv2d of an i64 input with f32 weights (and of an f32 input with an f64 kernel) stopped
# with "invalid graph: ... 'conv2d_grad_weight' ... has type f32[...] but its operands give
# i64[...]" before its rule cast the other operand to the result's dtype. The graph executor
# computed mse of a 0-d f64 tensor and an f32 one in f32 where sema, the JIT and PyTorch give f64,
# so mse's value and a's gradient printed as f32. The twin computes the same in PyTorch with the operands cast by
# hand (PyTorch's conv2d rejects the mix).

def conv_loss(w, x):
    y = conv2d(x, w, padding=1)
    return sum(y * y)

x = reshape(arange(50, dtype=i64), 1, 2, 5, 5) % 7
w = reshape(arange(54, dtype=f32), 3, 2, 3, 3) * 0.01 - 0.2
# CHECK: {{\]\]\]\]\)$}}
print(grad(conv_loss)(w, x))

x32 = reshape(arange(50, dtype=f32), 1, 2, 5, 5) * 0.1 - 2.0
w64 = w.astype(f64)
gx, gw = grad(conv_loss, argnums=(1, 0))(w64, x32)
# CHECK: {{\]\]\]\]\)$}}
print(gx)
# CHECK: {{\]\]\]\], dtype=f64\)$}}
print(gw)

def mse_loss(a, b):
    return mse(a, b)

a = tensor(0.25, dtype=f64)
b = reshape(arange(12, dtype=f32), 3, 4) * 0.1
# CHECK-NEXT: {{^tensor\(.*, dtype=f64\)$}}
print(mse_loss(a, b))
ga, gb = grad(mse_loss, argnums=(0, 1))(a, b)
# CHECK-NEXT: {{^tensor\(.*, dtype=f64\)$}}
print(ga)
# CHECK: {{\]\]\)$}}
print(gb)
