# RUN: %dlmc --emit=llvm -O0 %s | FileCheck %s
# Big ops call the runtime's kernels through the C ABI: kernel ids and attribute objects are
# built once by @dlm_init; each call's status is checked and a failure branches to an error
# exit that records the op's .dlm location (line 11, column 7: where `a @ b` starts) and
# returns 1.

a = randn(4, 8)
b = randn(8, 3)
s = sum(a, axis=1)
print(s)
print(a @ b)

# CHECK-DAG:   @kernel.matmul = internal global i32 -1
# CHECK-DAG:   @kernel.sum = internal global i32 -1
# CHECK-LABEL: define internal i32 @dlm_init()
# CHECK:       call i32 @dlm_kernel_id(ptr @[[NAME:.*]])
# CHECK:       call ptr @dlm_attrs_new()
# CHECK:       call void @dlm_attrs_set_ints(ptr %{{.*}}, ptr @{{.*}}, ptr @{{.*}}, i64 1)
# CHECK-LABEL: define i32 @dlm_main()
# CHECK:       load i32, ptr @kernel.matmul
# CHECK:       call i32 @dlm_kernel_call_values
# CHECK:       call void @dlm_set_error_location(ptr @{{.*}}, i32 11, i32 7, ptr @{{.*}})
# CHECK-NEXT:  ret i32 1
