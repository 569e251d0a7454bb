# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.out
# RUN: %python %S/twins/bool_arithmetic.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# Arithmetic on two bools. Bool tensors follow PyTorch: `+` is logical or, `*` logical and, `/`
# gives f32. Bool scalars follow Python: they are ints (True + True == 2, -True == -1). Sema used
# to type `bool[4] * bool[4]` as bool while the kernel returned i64, so the JIT's inline cast read
# the wrong bytes and printed zeros where the graph executor printed [0, 0, 1, 0]. Results are
# printed as f32 or int so that both sides print the same text. abs and relu of a bool are the
# bool, as sema types them and as in NumPy (PyTorch has no abs of a bool): the kernel returned
# i64, so the graph executor at -O0 printed tensor(0, dtype=i64) where the JIT printed
# tensor(False, dtype=bool) (found by the whole-pipeline fuzzer).
x = arange(4) > 1
y = arange(4) < 3
print((x * y).astype(f32))
print((x + y).astype(f32))
print(x / y)
print(((x * y) + x).astype(f32))
a = sum(arange(3)) > 1
b = sum(arange(3)) > 5
print((a * b).astype(f32), (a + b).astype(f32), a / b)
print(abs(x), relu(y), abs(a), relu(b), abs(x)[3])
t = True
f = False
print(t + t, t * f, -t, t - t, t / t)
n = 0
for i in range(4):
    n = n + (i > 1) + (i > 2)
print(n)
