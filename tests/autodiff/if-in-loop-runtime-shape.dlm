# RUN: dlm-ad run %s > %t.graph
# RUN: %python %S/twins/if_in_loop_runtime_shape.py > %t.ref
# RUN: %python %S/twins/check.py %t.graph %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.out
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: dlm-ad run --stack-stats %S/Inputs/if_in_loop_then.dlm 2>&1 | FileCheck %s
# An `if` in a differentiated loop whose side keeps a value of run-time shape for the gradient
# (a * xs[j:j + 1] is f64[?, 3]) failed at run time on both engines: "stack_push: a value saved
# for the gradient changed shape between loop iterations (f64[0, 3])". The value left the `if`
# as an extra result, an undef placeholder on the other side, and the loop pushed that result
# every iteration: the placeholder, zeros with 0 for each run-time dim, had another shape than
# the value. Such a value now goes on its own stack, pushed inside its side only (the stack is
# threaded through every `if` out to the loop body, unchanged on the other sides) and popped by
# the backward `if` on the same side. Covered: then and else sides, two saved values, an `if`
# in an `if`, a loop in an `if`, a static-shape control (xs[j], which keeps the placeholder
# path), and a second derivative (the stack ops inside ifs are differentiated in turn).
# dlm-ad runs the graph executor; dlm-diff runs both engines at -O0 and -O3 and checks they
# agree; the PyTorch twin checks the numbers.
#
# Stored: 4 predicates (1 byte each) and, on the 2 iterations that take the then side, its 2
# values of run-time shape (tanh's result and the slice, f64[1, 3] = 24 bytes each); nothing
# for the 2 iterations that do not.
# CHECK: stack pushes: 8
# CHECK-NEXT: stack bytes pushed: 100

def brief(w, xs):
    a = zeros(1, 3) * w
    j = 0
    while j < 4:
        if j % 2 == 0:
            a = a * xs[j:j + 1]
        j += 1
    return sum(a)

def then_side(w, xs):
    a = ones(1, 3, dtype=f64) * w
    j = 0
    while j < 4:
        if j % 2 == 0:
            a = tanh(a * xs[j:j + 1])
        j += 1
    return sum(a * a)

def else_side(w, xs):
    a = ones(1, 3, dtype=f64) * w
    for j in range(4):
        if j % 3 == 0:
            a = a + w
        else:
            a = sin(a * xs[j:j + 1]) * w
    return sum(a * a)

def two_saved(w, xs):
    a = ones(1, 3, dtype=f64) * w
    for j in range(3):
        if sum(a) > 0.0:
            x = xs[j:j + 1]
            a = tanh(a * x) * exp(x * w)
        else:
            a = a * xs[j:j + 1] + a
    return sum(a * a)

def static_shape(w, xs):
    a = ones(3, dtype=f64) * w
    for j in range(4):
        if j % 2 == 1:
            a = tanh(a * xs[j])
    return sum(a * a)

def nested_if(w, xs):
    a = ones(1, 3, dtype=f64) * w
    for j in range(4):
        if j % 2 == 0:
            if j > 1:
                a = tanh(a * xs[j:j + 1])
            else:
                a = a * w
    return sum(a * a)

def loop_in_if(w, xs):
    a = ones(1, 3, dtype=f64) * w
    for j in range(3):
        if j != 1:
            for k in range(j + 1):
                a = sin(a * xs[k:k + 1])
    return sum(a * a)

def then_grad(w, xs):
    return sum(grad(then_side)(w, xs) * w)

w = tensor([0.3, -0.2, 0.5]).astype(f64)
xs = tensor([[0.1, -0.2, 0.3], [0.05, 0.2, -0.1], [-0.3, 0.1, 0.2], [0.4, 0.25, -0.15]]).astype(f64)
print(grad(brief)(ones(1), ones(4, 3)))
print(grad(then_side)(w, xs))
print(grad(else_side)(w, xs))
print(grad(two_saved)(w, xs))
print(grad(two_saved)(-w, xs))
print(grad(static_shape)(w, xs))
print(grad(nested_if)(w, xs))
print(grad(loop_in_if)(w, xs))
print(grad(then_grad)(w, xs))
