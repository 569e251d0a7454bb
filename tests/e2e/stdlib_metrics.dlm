# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/stdlib_metrics.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# stdlib metrics against torch.nn.functional (twins/stdlib_metrics.py): cross-entropy, NLL of
# log-softmax, MSE and accuracy on seeded logits, their gradients (autograd), one-hot rows, and
# rounded scores.
import metrics

seed(9)
logits = randn(16, 5) * 2.0
labels = randperm(16) % 5
print(labels)
print(metrics.cross_entropy_loss(logits, labels), cross_entropy(logits, labels))
print(metrics.nll(log_softmax(logits, axis=1), labels))
target = randn(16, 5)
print(metrics.mse_loss(logits, target), mse(logits, target))
acc = metrics.accuracy(logits, labels)
print(acc, metrics.rounded(acc), metrics.rounded(metrics.cross_entropy_loss(logits, labels), digits=2))
print(metrics.onehot(labels[0:3], 5))

def nll_of_logits(l, labels):
    return metrics.nll(log_softmax(l, axis=1), labels)

print(grad(metrics.cross_entropy_loss)(logits, labels))
print(grad(nll_of_logits)(logits, labels))
print(grad(metrics.mse_loss)(logits, target))
