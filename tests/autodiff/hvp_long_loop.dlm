# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/hvp_long_loop.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# A Hessian-vector product through a 10 000-iteration loop, both halves of the Hessian (x and
# w). The first derivative's backward loop reads its stack with top/pop pairs; differentiating
# it again pushes the adjoint of each popped entry onto one growing adjoint stack (the pair's
# adjoint is one push), so this costs time and memory linear in the trip count
# (docs/autodiff.md "Stacks"). When a top's adjoint was a whole stack of zeros, 10 000
# iterations took 2.6 GB (every version of the stack was saved) and O(n^2) time.

def f(x, w):
    for i in range(10000):
        x = x + sin(x * w) * 0.0001
    return sum(x * x)

def gv(x, w, v):
    return sum(grad(f)(x, w) * v)

x = tensor([0.5, -0.3, 0.8, 1.2]).astype(f64)
w = tensor([1.5, 0.7, -1.1, 0.4]).astype(f64)
v = tensor([1.0, 2.0, -1.0, 0.5]).astype(f64)
print(grad(gv)(x, w, v))
print(grad(gv, argnums=1)(x, w, v))
