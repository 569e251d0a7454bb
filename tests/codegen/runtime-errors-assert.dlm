# RUN: %python %S/Inputs/exit-status.py 1 %dlm run %s | FileCheck %s
# A failed assert inside a function called in a loop stops the JIT'd program at the assert's
# location with its message.

def check_positive(v):
    assert v > 0.0, "value must be positive"
    return v * 2.0

total = 0.0
for k in range(3):
    total = total + check_positive(1.0 - k)
print(total)

# CHECK: runtime-errors-assert.dlm:6:5: error: assertion failed: value must be positive
# CHECK-NEXT:     assert v > 0.0, "value must be positive"
# CHECK-NOT: error:
