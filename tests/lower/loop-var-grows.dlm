# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# RUN: %dlmc --emit=graph %s | FileCheck %s --check-prefix=GRAPH
# A loop variable whose shape changes between iterations (x grows by a column each time) is
# carried with sema's joined type, f32[1, ?], by its loop's Merge, Switch and Exit. The Merge
# took the initial value's f32[1, 2], so x @ w in the inner loop looked as if it could not fail,
# and licm hoisted it out of the inner loop, which runs only in the first outer iteration: at
# -O2/-O3 the JIT failed with 'cannot multiply f32[1, 3] by f32[2, 2]' where -O0 printed the sum.
# (Found by tests/fuzz.)

x = ones(1, 2)
w = ones(2, 2)
s = sum(zeros(1))
n = 0
while n < 3:
    k = n
    while k < 1:
        s = s + sum(x @ w)
        k += 1
    x = concat((x, ones(1, 1)), 1)
    n += 1
print(s, x.shape)

# CHECK: tensor(4.) 1 5
# GRAPH: Merge({{.*}}) : f32[1, ?{{[0-9]+}}] in @main.while0
# GRAPH: matmul({{.*}}) : f32[1, 2] in @main.while1
