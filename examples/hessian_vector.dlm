# examples/hessian_vector.dlm — second-order differentiation through a loop.
#
# f runs a data-dependent while loop; its Hessian-vector product H v is the gradient of
# <grad f(x), v> (no Hessian is ever formed). It is checked against central finite differences
# of grad f. Run it with `dlm run examples/hessian_vector.dlm`.

def f(x, w):
    i = 0
    while i < 4 and norm(x) < 100.0:
        x = tanh(x @ w) + x * 0.5
        i += 1
    return sum(x * x)

def directional(x, w, v):
    return sum(grad(f)(x, w) * v)

def hvp(x, w, v):
    return grad(directional)(x, w, v)

seed(0)
w = randn(5, 5).astype(f64) * 0.5
x = randn(5).astype(f64)
v = randn(5).astype(f64)
hv = hvp(x, w, v)
eps = 1e-5
fd = (grad(f)(x + eps * v, w) - grad(f)(x - eps * v, w)) / (2.0 * eps)
print("H v          ", hv)
print("finite diffs ", fd)
err = max(abs(hv - fd))
print("max difference below 1e-6:", bool(err < 1e-6))
assert err < 1e-6, "Hessian-vector product disagrees with finite differences"
# The curvature along v: v^T H v.
print("curvature along v:", float(sum(v * hv)))
