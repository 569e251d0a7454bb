# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# optim and metrics on hand-computable inputs (both engines must agree).
import optim
import metrics

p = ((ones(3),), (ones(2, 2), ones(2)))
g = ((ones(3) * 3.0,), (ones(2, 2) * 4.0, ones(2)))
# sqrt(3 * 9 + 4 * 16 + 2 * 1) = sqrt(93)
print(metrics.rounded(optim.global_norm(g)))
# CHECK: 9.6437
c = optim.clip_by_global_norm(g, 1.0)
print(metrics.rounded(optim.global_norm(c)), optim.clip_by_global_norm(g, 100.0)[0][0])
# CHECK: 1.0 tensor([3., 3., 3.])
print(optim.sgd(p, g, 0.5)[1][1])
# CHECK: tensor([0.5, 0.5])
vel = optim.zeros_like(p)
p1, vel = optim.momentum(p, g, vel, 0.1)
p2, vel = optim.momentum(p1, g, vel, 0.1)
# velocity 3, then 0.9 * 3 + 3 = 5.7: 1 - 0.3 - 0.57
print(p2[0][0])
# CHECK: tensor([0.13, 0.13, 0.13])
s = optim.adam_init(p)
pa, s = optim.adam(p, g, s, lr=0.1)
print(pa[1][1], s[2])
# CHECK: tensor([0.9, 0.9]) 1
pw, s = optim.adamw(p, g, optim.adam_init(p), lr=0.1, weight_decay=0.5)
print(metrics.rounded(sum(pw[1][1]), digits=5))
# CHECK: 1.7
print(optim.step_decay(0.1, 5, 2), optim.exponential_decay(1.0, 2, 0.5), optim.cosine_decay(0.1, 5, 10), optim.linear_warmup(0.1, 1, 4))
# CHECK: 0.025 0.25 0.05 0.05

logits = tensor([[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [1.0, 0.0, 4.0], [5.0, 0.0, 0.0]])
labels = tensor([0, 1, 1, 2])
print(metrics.accuracy(logits, labels))
# CHECK: tensor(0.5)
ce = metrics.cross_entropy_loss(logits, labels)
print(abs(ce - metrics.nll(log_softmax(logits, axis=1), labels)) < 1e-6)
# CHECK: tensor(True, dtype=bool)
print(metrics.onehot(labels, 3))
# CHECK: tensor({{\[\[}}1., 0., 0.],
print(metrics.mse_loss(tensor([1.0, 2.0]), tensor([3.0, 2.0])), metrics.rounded(tensor(0.123456), digits=2))
# CHECK: tensor(2.) 0.12
