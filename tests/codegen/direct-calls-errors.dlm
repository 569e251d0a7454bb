# RUN: %python %S/Inputs/exit-status.py 1 %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# The direct index call (dlm_tensor_select) checks its run-time index like the kernel: an index
# past either end is the kernel's error at the op, on both engines (dlm-diff), after the
# earlier iterations' prints; negative indices count from the end until then.

y = reshape(arange(12, dtype=f32), 2, 2, 3)
i = -2
while i < 5:
    print(i, sum(y[i]))
    i += 1

# CHECK: -2 tensor(15.)
# CHECK-NEXT: -1 tensor(51.)
# CHECK-NEXT: 0 tensor(15.)
# CHECK-NEXT: 1 tensor(51.)
# CHECK-NEXT: direct-calls-errors.dlm:9:18: error: index 2 is out of range for axis 0 with size 2
# CHECK-NEXT:     print(i, sum(y[i]))
# CHECK-NEXT:                  ^
