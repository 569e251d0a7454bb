# RUN: not %dlm run --engine=graph %s > %t.out 2> %t.err
# RUN: FileCheck %s < %t.err
# RUN: FileCheck %s --check-prefix=OUT < %t.out
# An index out of range found at run time inside a loop stops the program: the error points at
# the indexing expression with the source line and a caret, the exit status is 1, the prints of
# earlier iterations have happened and nothing after the failing iteration runs. (A pure op's
# error is not ordered with the same iteration's print: only side effects are ordered.)

x = tensor([1.0, 2.0, 3.0])
total = sum(zeros(1))
for i in range(5):
    print("step", i)
    total += x[i]
print("unreachable", total)

# CHECK: runtime_error_index.dlm:[[@LINE-3]]:14: error: index 3 is out of range for axis 0 with size 3
# CHECK-NEXT: total += x[i]
# CHECK-NEXT: {{^             \^}}
# OUT: step 0
# OUT: step 1
# OUT: step 2
# OUT-NOT: step 4
# OUT-NOT: unreachable

# The JIT agrees with the graph executor (scripts/dlm-diff.py):
# RUN: not %python %src/scripts/dlm-diff.py %bin %s > %t.jit-out 2> %t.jit-err
# RUN: FileCheck %s < %t.jit-err
# RUN: FileCheck %s --check-prefix=OUT < %t.jit-out
