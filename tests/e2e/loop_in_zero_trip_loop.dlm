# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# RUN: env DLM_NUM_THREADS=4 %dlm run --engine=graph %s | FileCheck %s
# A while loop inside the body of a loop that runs no iteration (and inside a function called
# there). The inner loop is entered in the outer loop's dead iteration: its carried `s` starts
# from x, an invariant of the outer loop, so its Merge fires live, while its predicate (from t,
# or from a counter made in the dead body) is dead and its Exits fire dead. The graph
# executor's end-of-run check took the live Merge for a loop that ran and ended early, and
# failed these programs with "internal error: ... 'Exit' never run" (exit 70) where the JIT
# printed their results; an Exit is owed only once its loop variable's Switch fired live.

def f(x, n):
    s = x
    i = 0
    while i < n:
        j = 0
        while j < i:
            s = s + x
            j += 1
        i += 1
    return s

x = ones(2)
for t in range(0):
    s = x
    i = 0
    while i < t:
        s = s + x
        i += 1
    print(s)
for t in range(0):
    s = x
    i = 0
    while i < 3:
        s = s + x
        i += 1
    print(s)
for t in range(0):
    print(f(x, t))
n = 0
while n < 2:
    for t in range(n):
        print(n, f(x, t + 2))
    n += 1
print(f(x, 3))

# CHECK:      1 tensor([2., 2.])
# CHECK-NEXT: tensor([4., 4.])
# CHECK-NOT:  {{.}}
