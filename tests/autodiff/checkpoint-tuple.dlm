# RUN: %dlm run --engine=graph %s | FileCheck %s
# RUN: %dlm run --engine=jit %s | FileCheck %s
# checkpoint(f) of a function taking a parameter tuple, called in a loop: the gradient equals
# the one without checkpoint (the recomputation copies the tuple leaf by leaf).

def blk(p, h):
    w, b = p
    return tanh(h @ w + b)

def loss_ckpt(w, b, x):
    h = x
    p = (w, b)
    for k in range(3):
        h = checkpoint(blk)(p, h)
    return sum(h * h)

def loss_plain(w, b, x):
    h = x
    p = (w, b)
    for k in range(3):
        h = blk(p, h)
    return sum(h * h)

seed(7)
w = randn(4, 4)
b = randn(4)
x = randn(2, 4)
gw, gb = grad(loss_ckpt, argnums=(0, 1))(w, b, x)
pw, pb = grad(loss_plain, argnums=(0, 1))(w, b, x)
print("dw", max(abs(gw - pw)))
print("db", max(abs(gb - pb)))
print("nonzero", max(abs(gw)) > 0.0)
# CHECK: dw tensor(0.)
# CHECK-NEXT: db tensor(0.)
# CHECK-NEXT: nonzero tensor(True, dtype=bool)
