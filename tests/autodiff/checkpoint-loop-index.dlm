# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/checkpoint_loop_index.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit -O0 %s > %t.jit0
# RUN: %python %S/twins/check.py %t.jit0 %t.ref
# RUN: %dlm run --engine=jit -O3 %s > %t.jit3
# RUN: %python %S/twins/check.py %t.jit3 %t.ref
# A loop's index (or counter) passed to a checkpointed call: session 2 had a report of an
# assertion in lowering (Lower.cpp:212, "SSA value used outside the scope that defines it") for
# this; it was not reproduced then or now (Debug and assertion-enabled builds, every shape below:
# a for index, a while counter, nested loops, the index as a slice index, as the trip count of
# a loop inside the call, under an `if` inside the call, a checkpoint inside a checkpoint, and
# a second derivative). Each gradient is compared with PyTorch's.

def scaled(w, h, i):
    return sin(w * h) * (i + 1) + h

def for_index(w, x):
    h = x
    for i in range(4):
        h = checkpoint(scaled)(w, h, i)
    return sum(h * h)

def while_counter(w, x):
    h = x
    i = 0
    while sum(h * h) < 50.0 and i < 6:
        h = checkpoint(scaled)(w, h, i) * 1.5
        i += 1
    return sum(h)

def nested(w, x):
    h = x
    for i in range(3):
        for j in range(i + 1):
            h = checkpoint(scaled)(w, h, i - j)
    return sum(h * h)

def step(ws, h, i):
    return h + tanh(h @ ws[i])

def slice_index(ws, x):
    h = x
    for i in range(3):
        h = checkpoint(step)(ws, h, i)
    return sum(h * h)

def repeated(w, h, n):
    for j in range(n):
        if j % 2 == 0:
            h = sin(w * h) + h
        else:
            h = h * w
    return h

def trip_count(w, x):
    h = x
    for i in range(3):
        h = checkpoint(repeated)(w, h, i + 1)
    return sum(h * h)

def outer(w, h, i):
    for j in range(i):
        h = checkpoint(scaled)(w, h, j)
    return h

def checkpoint_in_checkpoint(w, x):
    h = x
    for i in range(3):
        h = checkpoint(outer)(w, h, i)
    return sum(h * h)

def gradient_sum(w, x):
    return sum(grad(for_index)(w, x))

w = tensor([0.3, -0.2]).astype(f64)
x = tensor([1.0, 0.5]).astype(f64)
ws = tensor([[[0.5, -0.3], [0.2, 0.4]], [[-0.1, 0.6], [0.3, -0.2]],
             [[0.2, 0.1], [-0.4, 0.3]]]).astype(f64)
xs = tensor([[1.0, 0.5], [-0.5, 0.25]]).astype(f64)
print(grad(for_index, argnums=(0, 1))(w, x))
print(grad(while_counter, argnums=(0, 1))(w, x))
print(grad(nested, argnums=(0, 1))(w, x))
print(grad(slice_index, argnums=(0, 1))(ws, xs))
print(grad(trip_count, argnums=(0, 1))(w, x))
print(grad(checkpoint_in_checkpoint, argnums=(0, 1))(w, x))
print(grad(gradient_sum, argnums=(0, 1))(w, x))
