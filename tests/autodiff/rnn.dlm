# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/rnn.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# A recurrent net over a sequence: indexing the input at each step, a hidden state carried,
# weights as loop invariants, a mean squared error at the end.

def loss(params, xs, target):
    wx, wh, b = params
    h = zeros(3, dtype=f64)
    for t in range(4):
        h = tanh(xs[t] @ wx + h @ wh + b)
    return mse(h, target)

wx = tensor([[0.1, 0.2, -0.1], [0.3, -0.2, 0.05]]).astype(f64)
wh = tensor([[0.5, -0.1, 0.2], [0.0, 0.3, -0.4], [0.1, 0.1, 0.1]]).astype(f64)
b = tensor([0.01, -0.02, 0.03]).astype(f64)
xs = tensor([[1.0, 0.0], [0.5, -0.5], [0.0, 1.0], [-1.0, 0.3]]).astype(f64)
target = tensor([0.2, -0.1, 0.4]).astype(f64)
g = grad(loss)((wx, wh, b), xs, target)
print(g[0])
print(g[1])
print(g[2])
