# RUN: not %python %src/scripts/dlm-diff.py %bin %s 2>&1 | FileCheck %s
# Errors in program order through fuse-library: in the second iteration h has shape [2, 1] and
# h @ uz fails. fuse-horizontal makes xs[t] @ wz and xs[t] @ wr one matmul and a split, placed
# at the end of the graph; fuse-library then made h @ uz + (the split's part) one matmul_bias,
# so the failing product waited for the split, and the engines, which run ready nodes in id
# order, first ran the autodiff push saving h for `z * h` ('changed shape'). A product that can
# fail no longer takes a bias made later in the graph. (Found by tests/fuzz.)

def f(wz, wr, uz, ur, b, xs):
    h = zeros(1, 2)
    t = 0
    while t < 2:
        z = xs[t] @ wz + h @ uz + b
        r = xs[t] @ wr + h @ ur + b
        h = (z * h * r).T
        t += 1
    return sum(h)

print(grad(f)(ones(2, 2), ones(2, 2), ones(2, 2), ones(2, 2), ones(2), ones(2, 1, 2)))

# CHECK-NOT: stack_push
# CHECK: fused-bias-error-order.dlm:13:26: error: cannot multiply f32[2, 1] by f32[2, 2]: inner dimensions 1 and 2 differ
