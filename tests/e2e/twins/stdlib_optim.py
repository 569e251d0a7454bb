"""Twin of stdlib_optim.dlm: the same MLP and data (dlmref.Rng), trained with torch.optim's
SGD, SGD(momentum), Adam and AdamW, torch.nn.utils.clip_grad_norm_, and the learning rates of
torch.optim.lr_scheduler's StepLR, ExponentialLR, CosineAnnealingLR and LinearLR."""
import math

import numpy as np
import torch
import torch.nn.functional as F
from dlmref import Rng, dprint

rng = Rng(2)
f32 = np.float32


def he_linear(n_in, n_out):
    return rng.randn(n_in, n_out) * f32(math.sqrt(2.0 / n_in)), np.zeros(n_out, f32)


x = torch.from_numpy(rng.randn(8, 3))
y = torch.from_numpy(rng.randn(8, 2))
p0 = [a for layer in (he_linear(3, 4), he_linear(4, 2)) for a in layer]


def fresh():
    return [torch.from_numpy(a.copy()).requires_grad_() for a in p0]


def loss_fn(p):
    h = F.relu(x @ p[0] + p[1])
    return F.mse_loss(h @ p[2] + p[3], y)


def step(p, opt, clip=None):
    opt.zero_grad()
    loss_fn(p).backward()
    if clip is not None:
        torch.nn.utils.clip_grad_norm_(p, clip)
    opt.step()


def show(p):
    dprint(*[a.detach().numpy() for a in p])


def train(make_opt, steps=4, clip=None):
    p = fresh()
    opt = make_opt(p)
    for _ in range(steps):
        step(p, opt, clip)
    show(p)
    return opt


train(lambda p: torch.optim.SGD(p, lr=0.1))
train(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9))
opt = train(lambda p: torch.optim.Adam(p, lr=0.01, betas=(0.9, 0.999), eps=1e-8))
dprint(int(opt.state[opt.param_groups[0]["params"][0]]["step"]))
train(lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.1))

p = fresh()
loss_fn(p).backward()
dprint(np.float32(torch.nn.utils.clip_grad_norm_(p, float("inf")).item()))
train(lambda p: torch.optim.SGD(p, lr=0.1), clip=0.5)

p = fresh()
opt = torch.optim.Adam(p, lr=0.02)
sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.7)
for epoch in range(3):
    for _ in range(2):
        step(p, opt)
    sched.step()
show(p)


def rates(make):
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    sched = make(opt)
    out = []
    for _ in range(6):
        out.append(sched.get_last_lr()[0])
        opt.step()
        sched.step()
    return out


schedules = [
    rates(lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5)),
    rates(lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.8)),
    rates(lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=5, eta_min=0.01)),
    rates(lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=1 / 4, end_factor=1.0, total_iters=3)),
]
for t in range(6):
    dprint(t, *[s[t] for s in schedules])
