# RUN: dlm-ad run %s
# Gradients through run-time sized tensors (x[0:n] has a symbolic row count): indexing (a
# one-hot mask instead of index_grad), reshape with a run-time dim, mean and mse counting
# elements at run time. Checked against central differences in the program itself.
def f(w, x, n: int):
    v = x[0:n]
    h = v * w
    m = reshape(h, -1, 2)
    return sum(m[1] * m[-1]) + sum(mean(m * m, axis=0)) + mse(m, m * 0.5)

seed(3)
x = randn(6, 2, dtype=f64)
w = randn(2, dtype=f64)
t = randn(2, dtype=f64)
n = 0
while n < 4:
    n += 2
eps = 1e-6
lhs = (f(w + eps * t, x, n) - f(w - eps * t, x, n)) / (2.0 * eps)
rhs = sum(grad(f)(w, x, n) * t)
assert abs(lhs - rhs) <= 1e-6 * abs(rhs), "gradient check failed"
