# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# A program the JIT compiles the large-program way (docs/codegen.md "Large programs"): an LSTM
# training loop whose @dlm_main has over 1500 instructions while every elementwise loop
# works on at most [8, 32] elements, so no IR pass runs on @dlm_main, the outlined elementwise
# loops are vectorised, and everything is compiled at machine-code level 0. dlm-diff checks the
# JIT against the graph executor at -O0 (the -O0 JIT does not vectorise) and -O3 (it does); the
# values are PyTorch's for the same model (torch.autograd.grad, the same updates), to 6 digits.
def loss(wx, wh, b, wo, xs):
    h = zeros(1, 8)
    c = zeros(1, 8)
    t = 0
    while t < 6:
        z = xs[t] @ wx + h @ wh + b
        i = sigmoid(z[:, 0:8])
        f = sigmoid(z[:, 8:16])
        g = tanh(z[:, 16:24])
        o = sigmoid(z[:, 24:32])
        c = f * c + i * g
        h = o * tanh(c)
        t += 1
    return sum(h @ wo)

xs = reshape(arange(48).astype(f32), (6, 1, 8)) * 0.05 - 1.0
wx = reshape(arange(256).astype(f32), (8, 32)) * 0.003 - 0.4
wh = reshape(arange(256).astype(f32), (8, 32)) * -0.002 + 0.25
b = zeros(32)
wo = reshape(arange(8).astype(f32), (8, 1)) * 0.1 - 0.3
for it in range(3):
    gwx, gwh, gb, gwo = grad(loss, argnums=(0, 1, 2, 3))(wx, wh, b, wo, xs)
    wx = wx - 0.1 * gwx
    wh = wh - 0.1 * gwh
    b = b - 0.1 * gb
    wo = wo - 0.1 * gwo
    print(loss(wx, wh, b, wo, xs))
    print(sum(gwx), sum(gwh), sum(gb), sum(gwo))
# PyTorch: 0.01239894 / 2.1203356 0.26837000 0.30425692 0.66475022
#          -0.05817408 / 1.4723926 0.18257320 0.21740757 0.64274281
#          -0.13531099 / 0.76046777 0.09916399 0.12250271 0.62350887
# CHECK:      tensor(0.012398{{[0-9]*}})
# CHECK-NEXT: tensor(2.12033{{[0-9]*}}) tensor(0.26837{{[0-9]*}}) tensor(0.30425{{[0-9]*}}) tensor(0.66475{{[0-9]*}})
# CHECK-NEXT: tensor(-0.058174{{[0-9]*}})
# CHECK-NEXT: tensor(1.47239{{[0-9]*}}) tensor(0.18257{{[0-9]*}}) tensor(0.21740{{[0-9]*}}) tensor(0.64274{{[0-9]*}})
# CHECK-NEXT: tensor(-0.13531{{[0-9]*}})
# CHECK-NEXT: tensor(0.76046{{[0-9]*}}) tensor(0.09916{{[0-9]*}}) tensor(0.12250{{[0-9]*}}) tensor(0.62350{{[0-9]*}})
