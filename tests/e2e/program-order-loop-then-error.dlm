# RUN: not %python %src/scripts/dlm-diff.py --everywhere %bin %s > %t.out 2> %t.err
# RUN: FileCheck %s < %t.err
# RUN: FileCheck %s --check-prefix=OUT --match-full-lines < %t.out
# Program order (docs/ir.md): a training loop prints, then a computation after it, independent
# of it, fails (a broadcast of run-time shapes inside g when k = 3). Every print of the loop
# comes first in program order, so it happens; the error follows. At -O2 and -O3 the JIT printed
# nothing: the failing computation was scheduled ahead of the loop. Issue 28's first example,
# run on the JIT and the graph executor (1 and 4 threads) at -O0..-O3 and as AOT executables.

def g(v, k: int):
    n = 0
    while n < k:
        n += 1
    a = tanh(zeros(n) * 3.0 + v * 2.0) * exp(v)
    print(a)
    return sum(a)
x = ones(4)
for epoch in range(2):
    print("epoch", epoch, g(x, 4))
print(grad(g)(x, 3))

# CHECK: program-order-loop-then-error.dlm:14:14: error: cannot broadcast f32[3] with f32[4]
# OUT:      tensor([2.6204987, 2.6204987, 2.6204987, 2.6204987])
# OUT-NEXT: epoch 0 tensor(10.481995)
# OUT-NEXT: tensor([2.6204987, 2.6204987, 2.6204987, 2.6204987])
# OUT-NEXT: epoch 1 tensor(10.481995)
# OUT-NOT: {{.}}
