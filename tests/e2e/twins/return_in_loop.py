from dlmref import dprint


def first_above(x, limit):
    for i, v in enumerate(x):
        if v > limit:
            return i
    return -1


def count_until(n, stop):
    c = 0
    while c < n:
        c += 1
        if c == stop:
            return c * 100
    return c


v = [0.5, 1.5, 2.5, 3.5]
dprint(first_above(v, 2.0), first_above(v, 9.0))
dprint(count_until(10, 4), count_until(3, 7))
