# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/while_counter_data.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# A while loop whose trip count is computed from the data and drives a matmul chain; the
# result depends on the exit value of the loop (an Exit whose gradient is an Enter).

def f(w, x):
    y = x
    while norm(y) < 20.0:
        y = w @ y + x
    return sum(y)

w = tensor([[1.1, 0.2], [-0.3, 0.9]]).astype(f64)
x = tensor([1.0, 0.5]).astype(f64)
print(grad(f, argnums=(0, 1))(w, x))
