# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/stdlib_optim.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# stdlib optim against torch.optim (twins/stdlib_optim.py trains the same MLP from the same
# initial weights with SGD, SGD with momentum, Adam, AdamW, clip_grad_norm_ and the
# lr_scheduler classes): the parameters after a few steps of each, the global norm, and each
# learning-rate schedule step by step.
import nn
import optim

def show(p):
    l1, l2 = p
    print(l1[0], l1[1], l2[0], l2[1])

def loss_fn(params, x, y):
    return mse(nn.mlp(params, x), y)

seed(2)
x = randn(8, 3)
y = randn(8, 2)
p0 = nn.init_mlp(3, 4, 2)

p = p0
for s in range(4):
    p = optim.sgd(p, grad(loss_fn)(p, x, y), 0.1)
show(p)

p = p0
v = optim.zeros_like(p)
for s in range(4):
    p, v = optim.momentum(p, grad(loss_fn)(p, x, y), v, 0.05)
show(p)

p = p0
st = optim.adam_init(p)
for s in range(4):
    p, st = optim.adam(p, grad(loss_fn)(p, x, y), st, lr=0.01)
show(p)
print(st[2])

p = p0
st = optim.adam_init(p)
for s in range(4):
    p, st = optim.adamw(p, grad(loss_fn)(p, x, y), st, lr=0.01, weight_decay=0.1)
show(p)

g = grad(loss_fn)(p0, x, y)
print(optim.global_norm(g))
p = p0
for s in range(4):
    p = optim.sgd(p, optim.clip_by_global_norm(grad(loss_fn)(p, x, y), 0.5), 0.1)
show(p)

# Adam with the learning rate decayed each epoch, as the Fashion-MNIST example does.
p = p0
st = optim.adam_init(p)
for epoch in range(3):
    lr = optim.exponential_decay(0.02, epoch, 0.7)
    for s in range(2):
        p, st = optim.adam(p, grad(loss_fn)(p, x, y), st, lr=lr)
show(p)

for t in range(6):
    print(t, optim.step_decay(0.1, t, 2), optim.exponential_decay(0.1, t, 0.8),
          optim.cosine_decay(0.1, t, 5, floor=0.01), optim.linear_warmup(0.1, t, 4))
