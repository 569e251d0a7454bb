# RUN: %dlmc --emit=llvm -O3 %s > %t.ll
# RUN: FileCheck %s < %t.ll
# RUN: FileCheck %s --check-prefix=SLOW < %t.ll
# An elementwise op on same-shape tensors becomes one loop over dense memory that LLVM
# vectorises for the host CPU, with the kernel call kept as the path for strided operands.
# `y` is read only once, so the second op may update it in place (dlm_tensor_output_like).

x = randn(1000)
y = x * 2.0
z = y + 1.0
print(z)

# CHECK-LABEL: define {{.*}}i32 @dlm_main()
# CHECK:       call ptr @dlm_tensor_dense_data
# CHECK:       call ptr @dlm_tensor_output_like
# CHECK:       fmul <{{[0-9]+}} x float>
# CHECK:       fadd <{{[0-9]+}} x float>
# SLOW:        load i32, ptr @kernel.mul
# SLOW:        call i32 @dlm_kernel_call_values
