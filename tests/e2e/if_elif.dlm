# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/if_elif.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# if / elif / else on values computed at run time (a tensor's sum and max), nested ifs, and an
# if whose branches define different values that are used after it: only the taken side runs.

def classify(x):
    s = sum(x)
    if s > 10.0:
        label = 2
    elif s > 0.0:
        label = 1
    else:
        label = 0
    return label

def clamp_scale(x, limit):
    m = max(x)
    if m > limit:
        y = x * (limit / m)
        note = "scaled"
    else:
        y = x
        note = "kept"
    return y, note

a = tensor([1.0, 2.0, 3.0])
b = tensor([-4.0, 1.0, 2.5])
c = tensor([5.0, 6.0, 7.5])
print(classify(a), classify(b), classify(c))
for t in (a, b, c):
    y, note = clamp_scale(t, 4.0)
    print(note, y)
n = 7
if n % 2 == 0:
    print("even")
elif n % 3 == 0:
    print("multiple of three")
else:
    if n > 5:
        print("odd and large", n)
    else:
        print("odd and small", n)
