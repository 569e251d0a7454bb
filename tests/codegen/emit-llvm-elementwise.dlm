# RUN: %dlmc --emit=llvm -O3 %s > %t.ll
# RUN: FileCheck %s < %t.ll
# RUN: FileCheck %s --check-prefix=VIEW < %t.ll
# An elementwise op on tensors becomes one loop over dense memory that LLVM vectorises for the
# host CPU; an operand that is a view at run time is first copied dense (no kernel call).
# `y` is read only once, so the second op may update it in place (dlm_tensor_output_like).
# -O3 fuses the two ops into one loop.

x = randn(1000)
y = x * 2.0
z = y + 1.0
print(z)

# CHECK-LABEL: define {{.*}}i32 @dlm_main()
# CHECK:       call ptr @dlm_tensor_output_like
# CHECK:       call ptr @dlm_tensor_data(
# CHECK:       fmul <{{[0-9]+}} x float>
# CHECK:       fadd <{{[0-9]+}} x float>
# CHECK-NOT:   kernel.mul
# CHECK-NOT:   kernel.add
# VIEW:        call ptr @dlm_tensor_contiguous
