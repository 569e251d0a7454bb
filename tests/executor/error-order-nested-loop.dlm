# RUN: not %python %src/scripts/dlm-diff.py %bin %s 2>&1 | FileCheck %s
# RUN: env DLM_NUM_THREADS=1 not %dlm run --engine=graph -O0 %s 2>&1 | FileCheck %s
# RUN: env DLM_NUM_THREADS=2 not %dlm run --engine=graph %s 2>&1 | FileCheck %s
# RUN: env DLM_NUM_THREADS=4 not %dlm run --engine=graph %s 2>&1 | FileCheck %s
# Errors in program order through a nested loop: in the second outer iteration x has 3 columns
# and x @ w in the inner loop fails. x is invariant in the inner loop, so autodiff saves it once
# per outer iteration, with a push in the outer loop's frame after the inner loop; that push
# fails too (x changed shape). The JIT runs the inner loop first and reports the matmul; the
# graph executor let only nodes of the failing iteration's own frame run after an error, so the
# push, ready first, stopped the inner loop and 'changed shape' was reported. Nodes of loops
# nested in the failing iteration now run too. (Found by tests/fuzz.)

def f(w):
    x = ones(1, 2)
    s = sum(zeros(1))
    n = 0
    while n < 3:
        n += 1
        k = 0
        while k < 3:
            k += 1
            s = s + sum(tanh(x @ w))
        x = concat((x, ones(1, 1)), 1)
    return s

print(grad(f)(ones(2, 2)))

# CHECK-NOT: stack_push
# CHECK: error-order-nested-loop.dlm:[[@LINE-7]]:30: error: cannot multiply f32[1, 3] by f32[2, 2]: inner dimensions 3 and 2 differ
