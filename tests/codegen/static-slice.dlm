# RUN: %dlmc --emit=llvm -O2 %s | FileCheck %s
# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s --check-prefix=OUT
# A slice with constant bounds and unit steps of a statically shaped tensor is a view made by
# generated code (dlm_tensor_slice with the start and shape resolved at compile time: negative
# bounds count from the end, bounds past the end clamp), also of an operand that is itself a
# view (a transpose); a slice with a run-time bound still calls the kernel. The gradient of
# such a slice (slice_grad: the gradient placed into zeros of the input's shape) is a direct
# call too (dlm_tensor_slice_grad). Both engines print the same (dlm-diff).

x = arange(24, dtype=f32).reshape(4, 6)
a = x[1:3, 2:]
b = x[-2:, :10]
t = x.T
c = t[1:4, 2:4]
print(a)
print(b)
print(c + 0.5)
for i in range(1, 2):
    print(sum(x[i:i + 2]))
print(sigmoid(x[0:1, 0:3]) * tanh(x[3:4, 3:6]))

def gates(z):
    return sum(sigmoid(z[:, 0:2]) * tanh(z[:, 2:4]) + z[-1:, 1:3])

print(grad(gates)(x[0:2, 0:4] * 0.1))

# CHECK-NOT: @kernel.slice_grad =
# CHECK: @kernel.slice =
# CHECK-NOT: @kernel.slice_grad =
# CHECK-LABEL: define {{.*}}i32 @dlm_main()
# CHECK-COUNT-5: call ptr @dlm_tensor_slice(
# CHECK: call ptr @dlm_tensor_slice_grad(
# CHECK: call ptr @dlm_tensor_slice_grad(

# OUT:      tensor({{\[}}[ 8.,  9., 10., 11.],
# OUT-NEXT:         [14., 15., 16., 17.]])
# OUT-NEXT: tensor({{\[}}[12., 13., 14., 15., 16., 17.],
# OUT-NEXT:         [18., 19., 20., 21., 22., 23.]])
# OUT-NEXT: tensor({{\[}}[13.5, 19.5],
# OUT-NEXT:         [14.5, 20.5],
# OUT-NEXT:         [15.5, 21.5]])
# OUT-NEXT: tensor(138.)
# OUT-NEXT: tensor({{\[}}[0.5      , 0.7310586, 0.880797 ]])
# OUT-NEXT: tensor({{\[}}[0.04934383, 0.07264639, 0.4805215 , 0.48042783],
# OUT-NEXT:         [0.15192115, 2.1588125 , 2.3609576 , 0.32535222]])
