# RUN: %python %src/scripts/dlm-diff.py --everywhere %bin %s | FileCheck %s
# Where one-element tensors kept in registers (docs/codegen.md "Values and memory") meet code
# that needs a tensor, on both engines at every level (dlm-diff --everywhere): a branch join and
# a loop exit stay in registers; a broadcast into a larger elementwise result, matmul, reshape,
# sum and the kernel-only floordiv and mod read the value boxed to its shape; a loop variable
# whose next value is not in a register (s below: `a` is a reshape) boxes its start, zeros(1),
# too; the gradient of such a loop pushes its values onto the stack boxed.

x = zeros(1)
y = ones(1, 1)
n = zeros(1, dtype=i32)
for i in range(5):
    x = x + 1.5
    y = y * 2.0 - x
    n = n + 2
    if i % 2 == 0:
        x = x * 0.5
print(x)
print(y)
print(n)
print(x > 2.0)
print(x + arange(3, dtype=f32))
print(y @ ones(1, 2))
print(reshape(y, 1) + x)
print(sum(y))
print(n // 3)
print(n % 4)

def f(w):
    a = reshape(w, 1)
    s = zeros(1)
    for t in range(4):
        s = s * a + tanh(a)
    return sum(s)

print(grad(f)(ones(1, 1) * 0.3))

def g(w):
    s = w * 1.0
    for t in range(3):
        s = s * w + 0.25
    return sum(s)

print(grad(g)(tensor([0.7])))

# CHECK: tensor([2.4375])
# CHECK: tensor({{\[}}[-36.625]])
# CHECK: tensor([10], dtype=i32)
# CHECK: tensor([ True], dtype=bool)
# CHECK: tensor([2.4375, 3.4375, 4.4375])
# CHECK: tensor({{\[}}[-36.625, -36.625]])
# CHECK: tensor([-34.1875])
# CHECK: tensor(-36.625)
# CHECK: tensor([3], dtype=i32)
# CHECK: tensor([2], dtype=i32)
# CHECK: tensor({{\[}}[1.8415037]])
# CHECK: tensor([1.9719999])
