# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.out
# RUN: FileCheck %s --check-prefix=ONE < %t.out
# RUN: %dlmc %s -o %t.exe && %t.exe | FileCheck %s --check-prefix=ONE
# The collectives of docs/dist.md in one program. A plain run is rank 0 of 1 and every
# collective is the identity (the lines below: both engines at -O0 and -O3, and AOT); under mpirun
# (collectives-mpi.test) the same file runs at 2 and 4 ranks. Rank r contributes
# (r + 1) * [1, 2, 3] and r + 1 copies of r, so every result is known in closed form at n ranks:
# sum n(n+1)/2 * [1, 2, 3], mean (n+1)/2 * [1, 2, 3], max n * [1, 2, 3], min [1, 2, 3];
# broadcast from rank 0 [1, 2, 3]; allgather 0, 1, 1, 2, 2, 2, ...; the gradient of
# sum(allreduce(w * x)) with respect to w is n * x on every rank (allreduce's adjoint is the
# allreduce of the result adjoints). A nested tuple is reduced leaf by leaf. Only rank 0 prints;
# every rank checks the results and a failed assert would end the run with an error.
r = rank()
n = world_size()
x = tensor([1.0, 2.0, 3.0]) * float(r + 1)
s = allreduce(x)
m = allreduce(x, op="mean")
hi = allreduce(x, op="max")
lo = allreduce(x, op="min")
b = broadcast(x, root=0)
gathered = allgather(ones(r + 1, dtype=i64) * r)
tup = allreduce((x, (full((1,), r, dtype=i64), 2.0)))
k = float(n * (n + 1) // 2)

def f(w, x):
    return sum(allreduce(w * x))

gw = grad(f)(tensor([0.5, 0.5, 0.5]), x)
assert float(sum(abs(s - tensor([1.0, 2.0, 3.0]) * k))) < 1e-5, "allreduce sum"
assert float(sum(abs(gw - x * float(n)))) < 1e-5, "gradient of allreduce"
barrier()
if r == 0:
    print("world", n)
    print("sum", s)
    print("mean", m)
    print("max", hi, "min", lo)
    print("broadcast", b)
    print("allgather", gathered)
    print("tuple", tup[0], tup[1][0], tup[1][1])
    print("grad", gw)
# ONE: world 1
# ONE-NEXT: sum tensor([1., 2., 3.])
# ONE-NEXT: mean tensor([1., 2., 3.])
# ONE-NEXT: max tensor([1., 2., 3.]) min tensor([1., 2., 3.])
# ONE-NEXT: broadcast tensor([1., 2., 3.])
# ONE-NEXT: allgather tensor([0], dtype=i64)
# ONE-NEXT: tuple tensor([1., 2., 3.]) tensor([0], dtype=i64) 2.0
# ONE-NEXT: grad tensor([1., 2., 3.])
