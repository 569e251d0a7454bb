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
# i64[...]" before its rule cast the other operand to the result's dtype. The twin computes
# the same in PyTorch with the operands cast by hand (PyTorch's conv2d rejects the mix).

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
