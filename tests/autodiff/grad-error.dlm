# RUN: not dlm-ad run %s 2>&1 | FileCheck %s
# RUN: not %python %src/scripts/dlm-diff.py %bin %s 2>&1 | FileCheck %s
# A run-time error that only the gradient can hit says which forward op's gradient failed and
# where that op is, on the graph executor (dlm-ad, and dlm-diff's graph runs) and the JIT
# (dlm-diff checks that both engines report the same first line). The forward pass alone runs:
# h changes shape between iterations, which is fine until the backward of dot needs h from
# every iteration and saves it on a stack, whose entries must keep one shape.

def f(x):
    h = x
    for i in range(3):
        h = zeros(i + 2) + dot(h, h) * 0.1
    return sum(h)

print(f(tensor([1.0, 2.0])))
print(grad(f)(tensor([1.0, 2.0])))

# CHECK: grad-error.dlm:12:28: error: in the gradient of 'dot' at {{.*}}grad-error.dlm:12:28: stack_push: a value saved for the gradient changed shape between loop iterations (f32[3])
# CHECK-NEXT: h = zeros(i + 2) + dot(h, h) * 0.1
