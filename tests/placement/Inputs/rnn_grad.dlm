# An f32 recurrent net trained a few steps: the state update runs in a loop that spans both
# devices when placed (matmul/tanh/add on the device; indexing, the stacks autodiff saves the
# states on, and the counters on the CPU), its gradient loop too, then an SGD update.

def loss(params, xs, target):
    wx, wh, b = params
    h = zeros(2, 3)
    for t in range(5):
        h = tanh(xs[t] @ wx + h @ wh + b)
    return mean((h - target) * (h - target))

seed(7)
wx = randn(4, 3) * 0.5
wh = randn(3, 3) * 0.5
b = zeros(3)
xs = randn(5, 2, 4)
target = randn(2, 3) * 0.3
i = 0
while i < 3:
    l, g = value_and_grad(loss)((wx, wh, b), xs, target)
    wx = wx - 0.5 * g[0]
    wh = wh - 0.5 * g[1]
    b = b - 0.5 * g[2]
    print(l)
    i = i + 1
print(wx)
print(softmax(wh, axis=1))
