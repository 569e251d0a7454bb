"""PyTorch twin of tests/autodiff/mixed-dtypes.dlm: each op computes in the promoted dtype (the
other operand cast by hand) and each gradient is cast back to its operand's dtype."""
import torch
import torch.nn.functional as F

from adref import out


def conv_loss(w, x):
    y = F.conv2d(x, w, padding=1)
    return (y * y).sum()


x = (torch.arange(50, dtype=torch.int64).reshape(1, 2, 5, 5) % 7)
w = (torch.arange(54, dtype=torch.float32).reshape(3, 2, 3, 3) * 0.01 - 0.2).requires_grad_(True)
(gw,) = torch.autograd.grad(conv_loss(w, x.float()), (w,))
out(gw)

x32 = (torch.arange(50, dtype=torch.float32).reshape(1, 2, 5, 5) * 0.1 - 2.0).requires_grad_(True)
w64 = w.detach().double().requires_grad_(True)
gx, gw = torch.autograd.grad(conv_loss(w64, x32.double()), (x32, w64))
out(gx.float())
out(gw)

a = torch.tensor(0.25, dtype=torch.float64, requires_grad=True)
b = (torch.arange(12, dtype=torch.float32).reshape(3, 4) * 0.1).requires_grad_(True)
loss = ((a - b.double()) ** 2).mean()
out(loss)
ga, gb = torch.autograd.grad(loss, (a, b))
out(ga)
out(gb.float())
