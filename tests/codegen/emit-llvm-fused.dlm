# RUN: %dlmc --emit=llvm -O0 --passes=fuse-elementwise %s > %t.O0.ll
# RUN: FileCheck %s --check-prefix=LOOP < %t.O0.ll
# RUN: %dlmc --emit=llvm -O2 %s > %t.O2.ll
# RUN: FileCheck %s --check-prefix=VEC --implicit-check-not=kernel.tanh --implicit-check-not=kernel.sigmoid --implicit-check-not=kernel.relu --implicit-check-not=kernel.add --implicit-check-not=kernel.mul --implicit-check-not=kernel.fused < %t.O2.ll
# A fused elementwise region is one loop nest over its output with the body inlined as scalar
# code: no kernel call, no intermediate tensor. Same-shape operands make one flat loop (d0
# only); a row-broadcast operand makes two levels whose innermost loop reads it with stride 1
# and the broadcast scalar once. The innermost loop is marked parallel so LLVM vectorises it
# for the host (<N x float> at -O2), in-place updates included.
x = randn(64, 256)
y = randn(64, 256)
b = randn(256)
print(tanh(x * 2.0 + y) * sigmoid(x) - relu(y))
print(x * b + 1.0)

# LOOP-LABEL: define i32 @dlm_main()
# LOOP:       call ptr @dlm_tensor_output_like
# LOOP:       call void @[[FLAT:dlm_fused\.[0-9]+]](ptr %{{[0-9]+}}, i64 16384, ptr %data{{[0-9]*}}, double %{{[0-9]+}}, ptr %data{{[0-9]*}})
# LOOP:       call void @[[BCAST:dlm_fused\.[0-9]+]](ptr %{{[0-9]+}}, i64 64, i64 256,
# LOOP:       define internal void @[[FLAT]](
# LOOP-NOT:   call {{.*}}@dlm_
# LOOP:       d0:
# LOOP-NOT:   d1:
# LOOP-NOT:   call {{.*}}@dlm_
# LOOP:       store float {{.*}}!llvm.access.group
# LOOP:       br i1 %{{[0-9]+}}, label %d0, label %d0.end, !llvm.loop
# LOOP:       define internal void @[[BCAST]](
# LOOP:       d0:
# LOOP:       d1:
# LOOP-NOT:   call
# LOOP:       br i1 %{{[0-9]+}}, label %d1, label %d1.end, !llvm.loop
# LOOP:       br i1 %{{[0-9]+}}, label %d0, label %d0.end
# LOOP-NOT:   !llvm.loop
# LOOP:       ret void
# LOOP:       !{!"llvm.loop.parallel_accesses", !{{[0-9]+}}}

# VEC-LABEL: define {{.*}}i32 @dlm_main()
# VEC:       call ptr @dlm_tensor_output_like
# VEC:       fmul <{{[0-9]+}} x float>
# VEC:       call ptr @dlm_tensor_output_like
# VEC:       fmul <{{[0-9]+}} x float>
