# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.out
# RUN: %python %S/twins/print_scalars.py > %t.ref
# RUN: diff %t.out %t.ref
# RUN: %dlmc %s -o %t.exe && %t.exe > %t.aot
# RUN: diff %t.aot %t.ref
# print tells the language's scalars (int, float, bool: Python's repr) from genuine 0-d tensors
# (NumPy's repr, "tensor(3.75, dtype=f64)"), although the graph carries both as the same 0-d
# f64/i64/bool value: sema marks which operands are scalars (print's `scalars` attribute). Before,
# every 0-d f64/i64/bool printed as a plain number. float(), int() and bool() turn a number or a
# 0-d tensor into the scalar, as Python's float(t) does. The twin prints the same values with
# NumPy's array2string and Python's repr; the text must match exactly, on both engines at -O0
# and -O3 (dlm-diff.py) and as an AOT executable.
import metrics

x = tensor([1.5, 2.25], dtype=f64)
s = sum(x)
print(s, float(s), 3.75)
n = sum(tensor([1, 2, 3]))
print(n, int(n), len(x))
b = s > 3.0
print(b, bool(b), True)
print(sum(x.astype(f32)), float(sum(x.astype(f32))))
print(argmax(x), x[1], x.astype(i64)[0])
tiny = sum(tensor([1e-05], dtype=f64))
print(tiny, float(tiny))
print(int(-2.7), int(2.7), float(3), bool(0.0), bool(-0.5), int(True), float(tensor(7, dtype=i32)))
print((s, float(s)), "in a tuple")

def half(v):
    return v * 0.5

print(half(s), half(float(s)))
acc = sum(zeros(1, dtype=f64))
for i in range(3):
    acc = acc + 1.0
    if i == 2:
        print(acc, float(acc))
print(metrics.rounded(tensor(0.88765)), metrics.rounded(sum(x), digits=1))

# float() keeps the gradient, like every float in dlm (PyTorch's float(t) would detach it).
def f(w):
    return float(sum(w * w)) * 2.0

print(grad(f)(tensor([1.0, 2.0])))
