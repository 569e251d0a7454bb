# RUN: %python %S/Inputs/exit-status.py 1 %dlm run %s | FileCheck %s
# Shapes that depend on a loop are symbolic at compile time; their mismatch is found when the
# kernel runs, and reported at the op.

k = 2
for i in range(3):
    k = k + 1
a = zeros(k)
b = ones(k - 1)
print(a + b)

# CHECK: runtime-errors-shape.dlm:10:7: error: cannot broadcast f32[5] with f32[4]
