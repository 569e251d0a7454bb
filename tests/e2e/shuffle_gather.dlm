# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/shuffle_gather.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# randperm (a Fisher-Yates shuffle on the Philox stream, reproduced by the twin), gather along
# axis 0 and 1 with repeated indices, its gradient (a scatter-add: repeated rows accumulate) on
# a static and on a run-time sized tensor, its second derivative, and data.shuffle.
import data

seed(7)
p = randperm(10)
print(p)
x = randn(6, 3)
i = tensor([4, 0, 4, 5])
print(gather(x, i))
print(gather(x, tensor([[2, 1], [0, 2]]), axis=1))
print(x.gather(i, axis=0) == gather(x, i))

def cubes(x, i):
    r = gather(x, i)
    return sum(r * r * r)

print(grad(cubes)(x, i))

# The number of rows is only known at run time here (a loop count), so the gradient's shape
# is too.
n = 0
while n < 5:
    n += 1
xd = randn(n, 2)
print(grad(cubes)(xd, tensor([1, 1, 3])))

# d/dx <grad(cubes)(x, i), v>: the gradient of the scatter-add is a gather.
v = randn(6, 3)
def along(x, i, v):
    return sum(grad(cubes)(x, i) * v)

print(grad(along)(x, i, v))

# data.shuffle keeps rows and labels together: row k of xs is row order[k] of x.
rows = reshape(arange(8, dtype=f32), 4, 2)
labels = arange(4, dtype=i64) * 10
xs, ys = data.shuffle(rows, labels)
print(xs, ys)
print(data.shuffle_rows(labels))
