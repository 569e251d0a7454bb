# RUN: %python %S/Inputs/exit-status.py 1 %dlm run %s | FileCheck %s
# An index out of range found at run time in JIT'd code: the kernel's error comes back through
# the C ABI status, the generated error exit records the op's location, and dlm reports it like
# a compile-time diagnostic (source line, caret) with exit status 1, after the earlier prints.

x = tensor([1.0, 2.0, 3.0])
i = 0
while i < 10:
    print("at", i)
    y = x[i]
    i += 1

# CHECK: at 2
# CHECK: runtime-errors-index.dlm:10:9: error: index 3 is out of range for axis 0 with size 3
# CHECK-NEXT:     y = x[i]
# CHECK-NEXT:         ^
