# RUN: %dlmc --emit=llvm -O2 %s | FileCheck %s
# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s --check-prefix=OUT
# split of an operand of static shape (a merged autodiff stack's entry split back into its
# values, every gradient step) is one dlm_tensor_slice view per piece, as the kernel makes
# them: also of a view (a transpose), with an empty piece, in a loop. Both engines print the
# same (dlm-diff).

x = reshape(arange(15, dtype=f32), 3, 5)
a, e, c = split(x, (2, 0, 3), axis=1)
print(a)
print(e.shape)
print(c * 2.0)
p, q = split(transpose(x), (1, 4))
print(p + q[3])
xs = reshape(arange(30, dtype=f32), 3, 2, 5)
i = 0
while i < 2:
    u, v = split(xs[i] * 1.0, 2)
    print(u - v)
    i += 1

# CHECK-NOT: @kernel.split =
# CHECK-LABEL: define {{.*}}i32 @dlm_main()
# CHECK-COUNT-7: call ptr @dlm_tensor_slice(

# OUT:      tensor({{\[}}[ 0.,  1.],
# OUT-NEXT:         [ 5.,  6.],
# OUT-NEXT:         [10., 11.]])
# OUT-NEXT: 3 0
# OUT-NEXT: tensor({{\[}}[ 4.,  6.,  8.],
# OUT-NEXT:         [14., 16., 18.],
# OUT-NEXT:         [24., 26., 28.]])
# OUT-NEXT: tensor({{\[}}[ 4., 14., 24.]])
# OUT-NEXT: tensor({{\[}}[-5., -5., -5., -5., -5.]])
# OUT-NEXT: tensor({{\[}}[-5., -5., -5., -5., -5.]])
