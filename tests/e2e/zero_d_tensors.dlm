# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.out
# RUN: %python %S/twins/zero_d_tensors.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# A Python scalar lowers to a 0-d tensor, so the kernels read every 0-d f64/i64 as a scalar and
# compare in the wider dtype. PyTorch tells them apart: a genuine 0-d f64/i64 tensor outranks a
# scalar of its category and counts as a tensor against another 0-d tensor, and comparisons
# compute in the promoted dtype (`f32[] <= 0.1` compares in f32). Lowering casts the operands to
# PyTorch's dtype where the graph's reading would differ (runtime/Promotion.h), so both engines
# print what the PyTorch twin computes. Each line was wrong on the graph executor before (the
# dtype or the value; the `add` of an i64 tensor and 1.5 was even rejected as an invalid graph),
# except the ones marked "as before". Results are printed flattened (`flat`), since print shows a
# 0-d f64/i64/bool as the Python number it usually is, hiding its dtype.

def flat(r):
    return reshape(r, -1)

def mul(a, b):
    return a * b

def add(a, b):
    return a + b

def div(a, b):
    return a / b

def le(a, b):
    return a <= b

def eq(a, b):
    return a == b

def pick(c, a, b):
    return where(c, a, b)

x64 = tensor(1.1).astype(f64)
tenth = tensor(1.0).astype(f64) / 10.0
big = tensor(2000000000)
print(flat(mul(x64, tensor(0.1))))
print(flat(add(big, tensor(2000000000).astype(i32))))
print(flat(add(tensor(3), 1.5)))
print(flat(mul(x64, tensor([1, 2, 3]).astype(i32))))
print(flat(div(tensor(3), tensor(2))))
print(flat(pick(tensor(True), tenth, tensor(0.5))))
print(flat(le(tensor(0.1), 0.1)))
print(flat(le(tensor([0.1, 0.2]), 0.1)))
print(flat(eq(tensor([16777217]).astype(i32), 16777216.0)))
print(flat(le(tensor([0.1]), tenth)))
# as before: a dimensioned tensor outranks the 0-d f64, and a scalar never widens a 0-d f32
print(flat(mul(x64, tensor([0.1, 0.2]))))
print(flat(mul(tensor(0.1), 1.1)))
print(flat(le(tenth, tensor(0.1))))
