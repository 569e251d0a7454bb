# RUN: dlm-ad run %s > %t.graph
# RUN: %python %S/twins/checkpoint_runtime_shape.py > %t.ref
# RUN: %python %S/twins/check.py %t.graph %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.out
# RUN: %python %S/twins/check.py %t.out %t.ref
# A checkpointed call inside a loop (or an `if`), under grad, given an argument whose shape is
# known only at run time (a slice with run-time bounds, f64[?, 3]): this stopped with an
# internal compiler error (Lower.cpp: "SSA value used outside the scope that defines it",
# exit 70). The backward recomputes the call inside the backward loop; the adjoints of the
# recomputed values were kept with the loop's own, so the backward loop took them for values
# from outside it and gave each an accumulator, whose initial zeros (zeros_like of the value,
# its shape being unknown) were made before the loop, reading a value of the loop's body. A
# fixed-shape argument (xs[j]) got `zeros` of its static shape instead: no crash, only dead
# accumulators. dlm-ad runs the graph executor; dlm-diff runs both engines at -O0 and -O3
# and checks they agree; the PyTorch twin (the same functions without checkpoint) checks the
# numbers.

def add_sum(a, x):
    return a + sum(x)

def brief(w, xs):
    a = zeros(1, 3) * w
    j = 0
    while j < 2:
        a = checkpoint(add_sum)(a, xs[j:j + 1])
        j += 1
    return sum(a)

def step(a, x):
    return tanh(a * sum(x)) + a * (1.0 + sum(x * x))

def rows(w, xs):
    a = ones(1, 3, dtype=f64) * w
    j = 0
    while j < 3:
        a = checkpoint(step)(a, xs[j:j + 1])
        j += 1
    return sum(a * a)

def two_calls(w, xs):
    a = ones(1, 3, dtype=f64) * w
    j = 0
    while j < 2:
        a = checkpoint(step)(a, xs[j:j + 1])
        a = checkpoint(step)(a * w, xs[j:j + 2])
        j += 1
    return sum(a * a)

def inner(a, x):
    return step(a, x) * 0.5 + sin(a)

def window(a, xs, j):
    return checkpoint(inner)(a, xs[j:j + 2])

def run_window(w, xs):
    a = ones(1, 3, dtype=f64) * w
    for j in range(2):
        a = window(a, xs, j)
    return sum(a * a)

def nested(w, xs):
    return run_window(w, xs) + sum(w * w)

def loops(w, xs):
    a = ones(1, 3, dtype=f64) * w
    for i in range(3):
        for j in range(i + 1):
            a = checkpoint(step)(a, xs[i - j:i - j + 1])
    return sum(a)

def with_if(w, xs, n):
    a = ones(1, 3, dtype=f64) * w
    if sum(w) > 0.0:
        a = checkpoint(step)(a, xs[0:n])
    else:
        a = a * w
    return sum(a * a)

w = tensor([0.3, -0.2, 0.5]).astype(f64)
xs = tensor([[0.1, -0.2, 0.3], [0.05, 0.2, -0.1], [-0.3, 0.1, 0.2]]).astype(f64)
print(grad(brief)(ones(1), ones(2, 3)))
print(grad(rows)(w, xs))
print(grad(two_calls)(w, xs))
print(grad(nested)(w, xs))
print(grad(loops)(w, xs))
for n in range(1, 3):
    print(grad(with_if)(w, xs, n))
    print(grad(with_if)(-w, xs, n))
