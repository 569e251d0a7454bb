# RUN: not %python %src/scripts/dlm-diff.py %bin %s > %t.out 2> %t.err
# RUN: FileCheck %s < %t.err
# RUN: FileCheck %s --check-prefix=OUT < %t.out
# RUN: %dlmc %s -o %t.exe
# RUN: %python %src/tests/codegen/Inputs/exit-status.py 1 %t.exe 2>&1 | FileCheck %s
# A shape error at run time (a size the compiler cannot know) in relu(x @ w + b): at -O2/-O3
# fuse-library makes it one matmul_bias {relu = true}, which used to take the relu's location,
# so the error pointed at `relu(` while -O0 pointed at the product (dlm-diff reported the
# engines' levels disagreeing). The fused op keeps the product's location on both engines and
# in an AOT executable.

n = 0
while n < 3:
    n += 1
x = ones(1, n)
print("before")
print(relu(x @ ones(4, 2) + ones(1, 2)))
print("unreachable")

# CHECK: review-fused-errors.dlm:[[@LINE-3]]:12: error: cannot multiply f32[1, 3] by f32[4, 2]: inner dimensions 3 and 4 differ
# CHECK-NEXT: print(relu(x @ ones(4, 2) + ones(1, 2)))
# CHECK-NEXT: {{^           \^}}
# OUT: before
# OUT-NOT: unreachable
