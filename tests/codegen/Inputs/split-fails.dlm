# A large program (split on two threads: tests/codegen/jit-threads.test) that fails at run time on
# its last line: an index known only then.
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
v = ones(4)
k = 0
for j in range(6):
    k = k + 1
print(v[k])
