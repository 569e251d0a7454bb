# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/loop_invariant.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# A weight used in every iteration (a loop invariant): its gradient is accumulated over the
# iterations of the backward frame.

def f(w, h):
    for i in range(5):
        h = tanh(w @ h)
    return sum(h)

w = tensor([[0.5, -0.3], [0.2, 0.8]]).astype(f64)
h = tensor([1.0, -1.0]).astype(f64)
print(grad(f, argnums=(0, 1))(w, h))
