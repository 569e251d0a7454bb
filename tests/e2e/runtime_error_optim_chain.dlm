# RUN: not %python %src/scripts/dlm-diff.py %bin %s 2> %t.err
# RUN: FileCheck %s < %t.err
# RUN: not %dlm run --engine=graph %s 2>&1 | FileCheck %s
# RUN: %dlmc %s -o %t.exe
# RUN: %python %src/tests/codegen/Inputs/exit-status.py 1 %t.exe 2>&1 | FileCheck %s
# A gradient whose size is only known at run time does not fit its parameter inside optim.sgd:
# reported at the user's optim.sgd call, with the library line as a note.
import optim

n = 0
while n < 3:
    n += 1
params = (ones(4), ones(2))
grads = (ones(n), ones(2))
print(optim.sgd(params, grads, 0.1))

# CHECK: runtime_error_optim_chain.dlm:15:7: error: cannot broadcast f32[4] with f32[3]
# CHECK-NEXT: {{^}}print(optim.sgd(params, grads, 0.1))
# CHECK-NEXT: {{^      \^}}
# CHECK-NEXT: optim.dlm:8:12: note: inside 'optim.sgd'
# CHECK-NEXT: {{^}}    return params - lr * grads
# CHECK-NEXT: {{^           \^}}
# CHECK-NOT: note:
