# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/break_continue.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# break and continue in for and while loops (sema turns them into exit flags carried by the
# loop), including a break from an inner loop only (return in a loop: return_in_loop.dlm).

s = 0
for i in range(100):
    if i % 3 == 0:
        continue
    if i > 20:
        break
    s += i
print(s)

found = -1
i = 0
while True:
    i += 1
    if i * i > 200:
        found = i
        break
print(found)

rows = 0
for i in range(5):
    for j in range(5):
        if j > i:
            break
        rows += 1
print(rows)

def first_above(x, limit):
    found = -1
    for i in range(len(x)):
        if x[i] > limit:
            found = i
            break
    return found

v = tensor([0.5, 1.5, 2.5, 3.5])
print(first_above(v, 2.0), first_above(v, 9.0))
