# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/while_data_dependent.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# while loops whose condition depends on tensor values computed in the loop: halving a vector
# until its norm drops below 1, and a Collatz sequence counted with integers.

x = tensor([3.0, 4.0, 12.0])
steps = 0
while norm(x) > 1.0:
    x = x * 0.5
    steps += 1
print(steps, x)

n = 27
count = 0
while n != 1:
    if n % 2 == 0:
        n = n // 2
    else:
        n = 3 * n + 1
    count += 1
print("collatz", count)
