# RUN: not %python %src/scripts/dlm-diff.py %bin %s 2> %t.err
# RUN: FileCheck %s < %t.err
# RUN: not %dlm run --engine=graph %s 2>&1 | FileCheck %s
# RUN: %dlmc %s -o %t.exe
# RUN: %python %src/tests/codegen/Inputs/exit-status.py 1 %t.exe 2>&1 | FileCheck %s
# A run-time error only the gradient hits (h changes shape between iterations, and the backward
# of dot saves h from every iteration on a stack whose entries must keep one shape), inside a
# user function called in a loop of a differentiated function. The gradient node keeps its
# forward op's position and calls: the error is at the dot (this file's innermost line), the
# message names the forward op, and the calls of step and of grad(f) follow as notes.

def step(h, i):
    return zeros(i + 2) + dot(h, h) * 0.1

def f(x):
    h = x
    for i in range(3):
        h = step(h, i)
    return sum(h)

print(f(tensor([1.0, 2.0])))
print(grad(f)(tensor([1.0, 2.0])))

# CHECK: runtime_error_gradient_in_function.dlm:13:27: error: in the gradient of 'dot' at {{.*}}runtime_error_gradient_in_function.dlm:13:27: stack_push: a value saved for the gradient changed shape between loop iterations (f32[3])
# CHECK-NEXT: {{^}}    return zeros(i + 2) + dot(h, h) * 0.1
# CHECK-NEXT: {{^                          \^}}
# CHECK-NEXT: runtime_error_gradient_in_function.dlm:18:13: note: 'step' called here
# CHECK-NEXT: {{^}}        h = step(h, i)
# CHECK-NEXT: {{^            \^}}
# CHECK-NEXT: runtime_error_gradient_in_function.dlm:22:7: note: 'grad(f)' called here
# CHECK-NEXT: {{^}}print(grad(f)(tensor([1.0, 2.0])))
# CHECK-NEXT: {{^      \^}}
# CHECK-NOT: note:
