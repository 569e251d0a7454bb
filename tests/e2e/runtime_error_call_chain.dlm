# RUN: not %python %src/scripts/dlm-diff.py %bin %s > %t.out 2> %t.err
# RUN: FileCheck %s < %t.err
# RUN: FileCheck %s --check-prefix=OUT < %t.out
# RUN: not %dlm run --engine=graph %s 2>&1 | FileCheck %s
# RUN: %dlmc %s -o %t.exe
# RUN: %python %src/tests/codegen/Inputs/exit-status.py 1 %t.exe 2>&1 | FileCheck %s
# A run-time error inside a stdlib function (a size known only at run time meets nn.linear's
# weights) is reported at the user's line that called into the library; notes follow with the
# library line that failed and the calls of the user's own function. The same whole message on
# the JIT (-O0 and -O3, through dlm-diff), the graph executor and an AOT executable.
import nn

def model(params, x):
    return relu(nn.linear(params, x))

n = 0
while n < 3:
    n += 1
x = ones(2, n)
params = nn.init_linear(4, 2)
print("before")
print(model(params, x))
print("unreachable")

# CHECK: runtime_error_call_chain.dlm:14:17: error: cannot multiply f32[2, 3] by f32[4, 2]: inner dimensions 3 and 4 differ
# CHECK-NEXT: {{^}}    return relu(nn.linear(params, x))
# CHECK-NEXT: {{^                \^}}
# CHECK-NEXT: nn.dlm:34:12: note: inside 'nn.linear'
# CHECK-NEXT: {{^}}    return x @ w + b
# CHECK-NEXT: {{^           \^}}
# CHECK-NEXT: runtime_error_call_chain.dlm:22:7: note: 'model' called here
# CHECK-NEXT: {{^}}print(model(params, x))
# CHECK-NEXT: {{^      \^}}
# CHECK-NOT: note:
# OUT: before
# OUT-NOT: unreachable
