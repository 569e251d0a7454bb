from dlmref import dprint

s = 0
for i in range(100):
    if i % 3 == 0:
        continue
    if i > 20:
        break
    s += i
dprint(s)
i = 0
while True:
    i += 1
    if i * i > 200:
        found = i
        break
dprint(found)
rows = 0
for i in range(5):
    for j in range(5):
        if j > i:
            break
        rows += 1
dprint(rows)


def first_above(x, limit):
    for i, v in enumerate(x):
        if v > limit:
            return i
    return -1


v = [0.5, 1.5, 2.5, 3.5]
dprint(first_above(v, 2.0), first_above(v, 9.0))
