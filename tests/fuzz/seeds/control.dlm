# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# A seed of the whole-pipeline fuzzer (docs/testing.md "Fuzzing"): control flow inside functions
# that are differentiated: an early return from a loop, break and continue under if, a while
# whose condition depends on tensor values, a for over a tuple, loop-carried tuples,
# value_and_grad with two argnums, grad of grad, checkpoint inside a loop and stop_gradient, so
# that mutants reach lowering's frames and autodiff's stacks on both engines.
# CHECK: first
# CHECK: value
# CHECK: second
# CHECK: done

def first_big(x, limit: float):
    i = 0
    while i < len(x):
        if float(x[i]) > limit:
            return x[i] * 2.0
        i += 1
    return sum(x) * 0.0

def walk(x, w):
    h = x
    acc = (zeros(4), 0.0)
    for t in range(5):
        if t == 1:
            continue
        h = tanh(h * w + stop_gradient(h) * 0.1)
        acc = (acc[0] + h, acc[1] + float(sum(h)))
        if t > 3:
            break
    n = 0
    while norm(h) > 0.5 and n < 10:
        h = h * 0.7
        n += 1
    return sum(acc[0] * h) + acc[1] * 0.01

def block(h, w):
    return sigmoid(h * w) + h

def deep(x, w):
    for s in (1.0, 0.5, 2.0):
        x = checkpoint(block)(x, w * s)
    return sum(x * x)

def cube(v):
    return v * v * v

seed(7)
x = randn(4)
w = randn(4) * 0.5
print("first", first_big(x, 0.2), first_big(x, 100.0))
v, (gx, gw) = value_and_grad(walk, argnums=(0, 1))(x, w)
print("value", v, gx, gw)
print("deep", deep(x, w), grad(deep, argnums=1)(x, w))
print("second", grad(grad(cube))(3.0), grad(first_big)(x, 0.2))
print("done")
