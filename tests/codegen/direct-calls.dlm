# RUN: %dlmc --emit=llvm -O2 %s > %t.ll
# RUN: FileCheck %s < %t.ll
# RUN: FileCheck %s --check-prefix=GENERIC < %t.ll
# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s --check-prefix=OUT
# The ops a training loop runs every step call their C ABI entries directly, without the
# generic kernel dispatch (docs/codegen.md "Calling convention"): stack_push (the forward loop
# saving values for its gradient), index with a register int (xs[t]: dlm_tensor_select, a view
# with the kernel's bounds check), transpose with its permutation checked at compile time,
# reshape and zeros of fixed shapes; matmul and other ops with tensor operands and one tensor
# result take dlm_kernel_run; the split of the one stack the gradient's saved values share
# (docs/opt.md merge-stacks) is a view per piece. Only the prints and the sum (a 0-d result)
# remain generic. Both engines print the same (dlm-diff), for negative run-time indices and
# views of views too.

def loss(w, xs):
    h = zeros(1, 4)
    t = 0
    while t < 3:
        h = tanh(xs[t] @ w + h)
        t += 1
    return sum(h.T @ h)

seed(1)
xs = randn(3, 1, 4)
w = randn(4, 4) * 0.5
print(grad(loss)(w, xs))
x = arange(24, dtype=f32)
y = reshape(x, 2, -1, 3)
print(y[1])
print(y[-2, 1:3])
print(transpose(reshape(x, 2, 3, 4), (2, 0, 1))[3] + 0.5)
print(transpose(y)[0, 1])
i = 0
while i < 3:
    print(y[i - 2] * 2.0)
    i += 1

# CHECK-LABEL: define {{.*}}i32 @dlm_main()
# CHECK-DAG: call ptr @dlm_stack_push(
# CHECK-DAG: call ptr @dlm_stack_top(
# CHECK-DAG: call ptr @dlm_stack_pop(
# CHECK-DAG: call ptr @dlm_tensor_select(
# CHECK-DAG: call ptr @dlm_tensor_transpose(
# CHECK-DAG: call ptr @dlm_tensor_reshape(
# CHECK-DAG: call ptr @dlm_tensor_zeros(
# CHECK-DAG: call ptr @dlm_kernel_run(
# GENERIC-LABEL: define {{.*}}i32 @dlm_main()
# GENERIC-COUNT-7: call i32 @dlm_kernel_call_values(
# GENERIC-NOT: call i32 @dlm_kernel_call_values(
# GENERIC-LABEL: define {{.*}} @dlm_fini()

# OUT:      tensor({{\[}}[ 0.37228382,  1.0444878 ,  0.3209843 ,  0.24591148],
# OUT-NEXT:         [ 0.97149897,  0.8862128 ,  0.40451974,  0.3219493 ],
# OUT-NEXT:         [ 0.12398726, -0.3007937 , -0.0461255 , -0.02929865],
# OUT-NEXT:         [ 1.5381677 ,  1.104892  ,  0.5714835 ,  0.45140707]])
# OUT-NEXT: tensor({{\[}}[12., 13., 14.],
# OUT-NEXT:         [15., 16., 17.],
# OUT-NEXT:         [18., 19., 20.],
# OUT-NEXT:         [21., 22., 23.]])
# OUT-NEXT: tensor({{\[}}[3., 4., 5.],
# OUT-NEXT:         [6., 7., 8.]])
# OUT-NEXT: tensor({{\[}}[ 3.5,  7.5, 11.5],
# OUT-NEXT:         [15.5, 19.5, 23.5]])
# OUT-NEXT: tensor([ 3., 15.])
# OUT-NEXT: tensor({{\[}}[ 0.,  2.,  4.],
# OUT-NEXT:         [ 6.,  8., 10.],
# OUT-NEXT:         [12., 14., 16.],
# OUT-NEXT:         [18., 20., 22.]])
# OUT-NEXT: tensor({{\[}}[24., 26., 28.],
# OUT-NEXT:         [30., 32., 34.],
# OUT-NEXT:         [36., 38., 40.],
# OUT-NEXT:         [42., 44., 46.]])
# OUT-NEXT: tensor({{\[}}[ 0.,  2.,  4.],
