# RUN: not %dlm run --engine=graph %s 2>&1 | FileCheck %s
# A failed assert stops the program with its message and location, exit status 1.

def safe_log(x):
    assert min(x) > 0.0, "log of a non-positive value"
    return log(x)

print(safe_log(tensor([1.0, 2.0])))
print(safe_log(tensor([1.0, -2.0])))
print("unreachable")

# CHECK: tensor([0.       , 0.6931472])
# CHECK: runtime_error_assert.dlm:5:{{[0-9]+}}: error: {{.*}}log of a non-positive value
# CHECK-NOT: unreachable

# The JIT agrees with the graph executor (scripts/dlm-diff.py):
# RUN: not %python %src/scripts/dlm-diff.py %bin %s 2>&1 | FileCheck %s
