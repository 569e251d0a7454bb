# RUN: %dlmc --emit=llvm -O2 %s | FileCheck %s
# Scalars live in registers and shape-free integer code is plain LLVM arithmetic: at -O2 the
# whole loop folds to its result, and only the print (a kernel) is a runtime call.

s = 0
for i in range(10):
    s = s + i * 2
print(s)

# CHECK-LABEL: define {{.*}}i32 @dlm_main()
# CHECK-NOT:   @dlm_kernel_call_values(i32 {{.*}}@kernel.add
# CHECK:       call ptr @dlm_tensor_scalar_i64(i64 90)
# CHECK:       call i32 @dlm_kernel_call_values
