# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/tuple_params.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# A parameter set as a tuple of tuples (an MLP): the gradient has the same structure.

def mlp(params, x):
    l1, l2 = params
    w1, b1 = l1
    w2, b2 = l2
    h = relu(x @ w1 + b1)
    return sum(log_softmax(h @ w2 + b2, 1)[:, 0])

w1 = tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]).astype(f64)
b1 = tensor([0.01, 0.02, -0.03]).astype(f64)
w2 = tensor([[0.7, -0.1], [0.2, 0.3], [-0.5, 0.4]]).astype(f64)
b2 = tensor([0.05, -0.05]).astype(f64)
x = tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]]).astype(f64)
g = grad(mlp)(((w1, b1), (w2, b2)), x)
print(g[0][0], g[0][1])
print(g[1][0], g[1][1])
