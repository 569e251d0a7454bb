# RUN: %dlm run --engine=graph -O0 %s | FileCheck %s
# RUN: env DLM_NUM_THREADS=4 %dlm run --engine=graph %s | FileCheck %s
# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# A loop whose body calls grad(f) of a function that prints carries the ordering token like a
# loop with a plain call: the derivative runs f's forward pass, prints included. Lowering looked
# for side effects in calls only, not in grad calls, so the training loop's prints were ordered
# with nothing and the graph executor interleaved them with the prints before the loop and
# printed 'before' after them. (Found by tests/fuzz in a mutant of examples/adaptive_computation.dlm.)

def act(x):
    h = x
    s = 0
    while mean(h) < 8.0:
        h = h * 2.0
        print("v", s)
        s += 1
    return h, s

def loss(x):
    h, s = act(x)
    return sum(h)

p, n = act(ones(1))
first = loss(ones(1))
print("before", n)
g = ones(1)
for it in range(2):
    g = grad(loss)(ones(1) * (it + 1.0))
print("after", g)

# CHECK: v 0
# CHECK-NEXT: v 1
# CHECK-NEXT: v 2
# CHECK-NEXT: v 0
# CHECK-NEXT: v 1
# CHECK-NEXT: v 2
# CHECK-NEXT: before 3
# CHECK-NEXT: v 0
# CHECK-NEXT: v 1
# CHECK-NEXT: v 2
# CHECK-NEXT: v 0
# CHECK-NEXT: v 1
# CHECK-NEXT: after tensor([4.])
