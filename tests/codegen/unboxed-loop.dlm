# RUN: %dlmc --emit=llvm -O2 %s | FileCheck %s
# RUN: %python %src/scripts/dlm-diff.py --everywhere %bin %s | FileCheck %s --check-prefix=OUT
# A one-element tensor of static shape ([1], [1, 1]) computed by elementwise code lives in a
# register like a 0-d value (docs/codegen.md "Values and memory"): the loop-carried `x = x + 1.5`
# on a [1] tensor calls nothing in the runtime (it took five calls per add before: output_like,
# dense_data, ...). A reader that needs a tensor (print) gets it boxed to its shape. Both engines
# print the same at every level (dlm-diff --everywhere).

x = zeros(1)
y = ones(1, 1)
n = zeros(1, dtype=i32)
for i in range(1000):
    x = x + 1.5
    y = y * 0.5 + x
    n = n + 2
print(x)
print(y)
print(n)

# CHECK-LABEL: define {{.*}}i32 @dlm_main()
# CHECK-NOT:   @dlm_tensor_output_like
# CHECK-NOT:   @dlm_kernel_run
# CHECK:       call ptr @dlm_tensor_scalar_f32(
# CHECK:       call ptr @dlm_tensor_reshape({{.*}}, i32 1,
# CHECK:       call ptr @dlm_tensor_scalar_f32(
# CHECK:       call ptr @dlm_tensor_reshape({{.*}}, i32 2,
# CHECK:       call ptr @dlm_tensor_scalar_i32(
# CHECK-NOT:   @dlm_tensor_output_like
# CHECK-LABEL: declare

# OUT: tensor([1500.])
# OUT: tensor({{\[}}[2997.]])
# OUT: tensor([2000], dtype=i32)
