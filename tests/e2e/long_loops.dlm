# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/long_loops.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# 100 000 iterations of a flat loop and 300 x 300 of a nested one (a fresh inner frame per
# outer iteration): the executor frees iterations and frames as they finish, so these run in
# bounded memory; a tensor carried through 1000 iterations is updated in place of the old one.

s = 0
for i in range(100000):
    s += i % 7
print(s)
t = 0
for i in range(300):
    for j in range(300):
        if (i + j) % 5 == 0:
            t += 1
print(t)
x = zeros(4)
for k in range(1000):
    x = x + arange(4) * 0.001
print(x)
