# RUN: %dlmc --emit=llvm -O0 %s > %t.ll
# RUN: FileCheck %s < %t.ll
# RUN: FileCheck %s --check-prefix=EXIT < %t.ll
# Big ops call the runtime's kernels through the C ABI, ids and attributes built by @dlm_init:
# a tensor op with one tensor result (matmul) via dlm_kernel_run (null result: failure), others
# (print) via dlm_kernel_call_values (non-zero status). A failure branches to the one error exit
# with the call's site, an index into a table of .dlm locations (the matmul: line 14, column 7,
# with its source line), which records it, releases every tensor held, runs @dlm_fini, returns 1.

a = randn(4, 8)
b = randn(8, 3)
s = sum(a, axis=1)
print(s)
print(a @ b)

# CHECK-DAG:   @kernel.matmul = internal global i32 -1
# CHECK-DAG:   @kernel.sum = internal global i32 -1
# CHECK-DAG:   @[[LINE:.*]] = private constant [13 x i8] c"print(a @ b)\00"
# CHECK-DAG:   @sites = private constant [6 x { ptr, i32, i32, ptr, ptr, ptr, i32 }] [{{.*}}{ ptr @{{.*}}, i32 14, i32 7, ptr @[[LINE]], ptr null, ptr null, i32 0 }
# CHECK-LABEL: define internal i32 @dlm_init()
# CHECK:       call i32 @dlm_kernel_id(ptr @{{.*}})
# CHECK:       call ptr @dlm_attrs_new()
# CHECK:       call void @dlm_attrs_set_ints(ptr %{{.*}}, ptr @{{.*}}, ptr @{{.*}}, i64 1)
# CHECK-LABEL: define i32 @dlm_main()
# CHECK:       load i32, ptr @kernel.print
# CHECK:       call i32 @dlm_kernel_call_values
# CHECK-NEXT:  icmp ne i32
# CHECK-NEXT:  br i1 %{{.*}}, label %fail, label %{{.*}}, !prof
# CHECK:       [[ID:%.*]] = load i32, ptr @kernel.matmul
# CHECK:       [[T:%.*]] = call ptr @dlm_kernel_run(i32 [[ID]], ptr %{{.*}}, i32 2, ptr null)
# CHECK-NEXT:  [[BAD:%.*]] = icmp eq ptr [[T]], null
# CHECK-NEXT:  br i1 [[BAD]], label %fail, label %{{.*}}, !prof

# EXIT-LABEL:  define i32 @dlm_main()
# EXIT:        fail:
# EXIT-NEXT:   %site = phi i32
# EXIT-NEXT:   [[SITE:%.*]] = getelementptr inbounds [6 x { ptr, i32, i32, ptr, ptr, ptr, i32 }], ptr @sites, i32 0, i32 %site
# EXIT-NEXT:   call void @dlm_set_error_site(ptr [[SITE]])
# EXIT-NEXT:   call void @dlm_release_tensors(ptr %tensors, i64 {{[0-9]+}})
# EXIT-NEXT:   call void @dlm_fini()
# EXIT-NEXT:   ret i32 1
