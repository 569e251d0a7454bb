# The then side of tests/autodiff/if-in-loop-runtime-shape.dlm alone, for its stack statistics.
def then_side(w, xs):
    a = ones(1, 3, dtype=f64) * w
    j = 0
    while j < 4:
        if j % 2 == 0:
            a = tanh(a * xs[j:j + 1])
        j += 1
    return sum(a * a)

w = tensor([0.3, -0.2, 0.5]).astype(f64)
xs = tensor([[0.1, -0.2, 0.3], [0.05, 0.2, -0.1], [-0.3, 0.1, 0.2], [0.4, 0.25, -0.15]]).astype(f64)
print(grad(then_side)(w, xs))
