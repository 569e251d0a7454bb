# RUN: not %dlmc --emit=ssa %s 2>&1 | FileCheck %s
# The printed form of sema's errors: file:line:col, the source line, a caret under the culprit
# expression, notes where the operands were defined, every error of the file, exit status 1.
a = zeros(3, 4)
b = zeros(5)
c = a + b
d = a @ a

# CHECK: format.dlm:6:5: error: cannot broadcast f32[3, 4] with f32[5]
# CHECK-NEXT: c = a + b
# CHECK-NEXT:     ^~~~~
# CHECK-NEXT: format.dlm:4:1: note: 'a' is f32[3, 4], defined here
# CHECK-NEXT: a = zeros(3, 4)
# CHECK-NEXT: ^
# CHECK-NEXT: format.dlm:5:1: note: 'b' is f32[5], defined here
# CHECK: format.dlm:7:5: error: matmul: 4 columns on the left vs 3 rows on the right (f32[3, 4] @ f32[3, 4])
# CHECK: 2 errors generated
