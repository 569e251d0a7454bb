# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# RUN: %dlmc --emit=opt %s | FileCheck %s --check-prefix=OPT
# Reduced from examples/adaptive_computation.dlm, which crashed the JIT in its training loop.
# `tensor(1.0) * 0.25` is declared f32[] (a Python float is weak), but the mul kernel promotes
# two 0-d operands, f32[] and f64[], to f64. Constant folding evaluated it with the kernel and
# retyped the node f64[]; the loop variable initialised from it (an f32[] Enter/Merge) then got
# an 8-byte double stored into its 4-byte slot, and the JIT printed nan or crashed. Folding
# now keeps the declared dtype, and codegen rejects such a store as an internal error.

step = tensor(1.0) * 0.25
bias = tensor(2.0) * 0.5
i = 0
while i < 3:
    step = step * 2.0
    i += 1
total = zeros(2)
for k in range(2):
    total = total + bias
print(step)
print(total)

# CHECK: tensor(2.)
# CHECK-NEXT: tensor([2., 2.])
# OPT-DAG: const() {dtype = f32, shape = [], value = [0.25]} : f32[]
# OPT-DAG: const() {dtype = f32, shape = [], value = [1.0]} : f32[]
# OPT-NOT: value = 0.25}
# OPT-NOT: value = 1.0}
