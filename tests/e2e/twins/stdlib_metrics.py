"""Twin of stdlib_metrics.dlm: the same logits and targets (dlmref.Rng), scored with
torch.nn.functional.cross_entropy, nll_loss, mse_loss and an arg-max accuracy, differentiated by
autograd."""
import numpy as np
import torch
import torch.nn.functional as F
from dlmref import Rng, dprint

rng = Rng(9)



def out(*values):
    dprint(*[v.detach().numpy() if isinstance(v, torch.Tensor) else v for v in values])


logits = torch.from_numpy(rng.randn(16, 5) * np.float32(2.0))
labels = torch.from_numpy(rng.randperm(16) % 5)
out(labels)
ce = F.cross_entropy(logits, labels)
out(ce, ce)
out(F.nll_loss(F.log_softmax(logits, dim=1), labels))
target = torch.from_numpy(rng.randn(16, 5))
out(F.mse_loss(logits, target), F.mse_loss(logits, target))
acc = (logits.argmax(dim=1) == labels).float().mean()
dprint(acc.numpy(), round(acc.item(), 4), round(ce.item(), 2))
out(F.one_hot(labels[0:3], 5).float())


def grad_of(loss):
    leaf = logits.clone().requires_grad_()
    loss(leaf).backward()
    return leaf.grad


out(grad_of(lambda l: F.cross_entropy(l, labels)))
out(grad_of(lambda l: F.nll_loss(F.log_softmax(l, dim=1), labels)))
out(grad_of(lambda l: F.mse_loss(l, target)))
