# RUN: not %python %src/scripts/dlm-diff.py --everywhere %bin %s > %t.out 2> %t.err
# RUN: FileCheck %s < %t.err
# RUN: count 0 < %t.out
# Program order (docs/ir.md): the index fails, so the print after it must not happen, although
# it does not depend on the index. The graph executor printed 1 before reporting the error
# (docs/executor.md's former "Known gap"). Issue 28's second example, run on the JIT and the
# graph executor (1 and 4 threads) at -O0..-O3 and as AOT executables.

x = ones(3)
y = x[int(sum(x)) * 2]
print(1)

# CHECK: program-order-print-after-error.dlm:10:5: error: index 6 is out of range for axis 0 with size 3
