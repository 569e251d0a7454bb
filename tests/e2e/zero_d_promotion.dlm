# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# A 0-d tensor meeting a Python scalar or another tensor promotes like PyTorch (docs/language.md;
# runtime/Promotion.h is the one rule for compiler and kernels): a scalar never widens a 0-d
# tensor of its category (`x * 1.1` with `x: f32[]` stays f32), a dimensioned tensor outranks a
# 0-d one (`f64[] * f32[3]` is f32), a 0-d tensor of a higher category keeps its own dtype. The
# kernels used to promote two 0-d operands as equals (f32[] * 1.1 computed in f64, i32[] + int in
# i64) while the compiler declared f32 and i32, so the engines printed different numbers. The
# expected values are PyTorch's (torch.tensor(0.1) * 1.1 and so on).

def f(x: Tensor[f32]):
    return x * 1.1

def g(x: Tensor[i32]):
    return x * 1.1

def h(x: Tensor[i32]):
    return x + 3000000000

def k(x: Tensor[f64], y: Tensor[f32, 3]):
    return x * y

def q(x: Tensor[i32]):
    return x / 2

def e(x: Tensor[i32]):
    return exp(x)

def w(x: Tensor[i32, 2], y: Tensor[f32]):
    return x * y

print(f(tensor(0.1)))
print(g(tensor(3).astype(i32)))
print(h(tensor(2).astype(i32)))
print(k(tensor(1.1).astype(f64), tensor([0.1, 0.2, 0.3])))
print(q(tensor(3).astype(i32)))
print(e(tensor(1).astype(i32)))
print(w(tensor([1, 2]).astype(i32), tensor(0.1)))
print(f(tensor(0.1)) * 3)

# CHECK: tensor(0.11000001)
# CHECK-NEXT: tensor(3.3000002)
# CHECK-NEXT: tensor(-1294967294, dtype=i32)
# CHECK-NEXT: tensor([0.11000001, 0.22000001, 0.33      ])
# CHECK-NEXT: tensor(1.5)
# CHECK-NEXT: tensor(2.7182817)
# CHECK-NEXT: tensor([0.1, 0.2])
# CHECK-NEXT: tensor(0.33)
