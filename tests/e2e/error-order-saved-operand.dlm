# RUN: not %python %src/scripts/dlm-diff.py %bin %s > %t.out 2> %t.err
# RUN: FileCheck %s < %t.err
# RUN: FileCheck %s --check-prefix=OUT < %t.out
# RUN: env DLM_NUM_THREADS=2 not %dlm run --engine=graph %s 2>&1 | FileCheck %s
# RUN: env DLM_NUM_THREADS=4 not %dlm run --engine=graph %s 2>&1 | FileCheck %s
# In the second iteration x has 3 columns and x @ w fails (a size known only at run time). x is
# also saved for the gradient (the autodiff stack push, which fails too: x changed shape). The
# JIT runs them in program order and reported the matmul; the graph executor ran the cheap push
# inline while the matmul waited in the queue for another thread, and reported "changed shape"
# (dlm-diff: the engines disagree). Both report the user's matmul now, on any thread count.

def f(w):
    x = ones(1, 2)
    s = sum(zeros(1))
    n = 0
    while n < 3:
        n += 1
        s = s + sum(tanh(x @ w))
        x = concat((x, ones(1, 1)), 1)
    return s

print("before")
print(grad(f)(ones(2, 2)))

# CHECK: error-order-saved-operand.dlm:[[@LINE-7]]:26: error: cannot multiply f32[1, 3] by f32[2, 2]: inner dimensions 3 and 2 differ
# OUT: before
