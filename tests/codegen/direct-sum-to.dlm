# RUN: %dlmc --emit=llvm -O2 %s | FileCheck %s
# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s --check-prefix=OUT
# sum_to of a gradient whose shape only gains leading axes of size 1 (a bias broadcast over one
# row, [1, n] -> [n]) has nothing to add up: dlm_tensor_sum_to copies it, each element plus
# 0.0 as the kernel's sum from zero does, so -0.0 becomes +0.0 on both engines (dlm-diff
# compares them at -O0 and -O3). A real reduction ([2, n] -> [n]) still runs the kernel.

def f(b, x, m):
    return sum((x + b) * m)

seed(5)
x = randn(1, 6)
m = randn(1, 6) * 0.0
b = randn(6)
print(m)
print(grad(f)(b, x, m))
m2 = randn(2, 6) * 0.0 + tensor([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.5, 0.5, 0.5, 0.5, 0.5, 0.5]])
print(grad(f)(b, randn(2, 6), m2))

# CHECK-LABEL: define {{.*}}i32 @dlm_main()
# CHECK: call ptr @dlm_tensor_sum_to({{.*}}, i32 1, {{.*}})
# CHECK: load i32, ptr @kernel.sum_to
# CHECK: call ptr @dlm_kernel_run(

# OUT: tensor({{\[}}[-0., -0.,  0.,  0., -0., -0.]])
# OUT-NEXT: tensor([0., 0., 0., 0., 0., 0.])
# OUT-NEXT: tensor([1.5, 2.5, 3.5, 4.5, 5.5, 6.5])
