# bench/jit/lstm_train.dlm's LSTM (hidden 32, 100 steps, batch 1, forward + backward + SGD
# update) written with one weight matrix per gate, as papers write it, trained for 30 steps.
# bench/RESULTS.md times a step with and without `fuse-horizontal`, which turns the eight gate
# matmuls of a time step into two (x_t by [wi wf wg wo], h by [ui uf ug uo]) in the loss's
# forward loop and in the gradient's (bench/opt/horizontal_bench.py).
def loss(p, xs):
    wi, wf, wg, wo, ui, uf, ug, uo, bi, bf, bg, bo, wout = p
    h = zeros(1, 32)
    c = zeros(1, 32)
    t = 0
    while t < 100:
        x = xs[t]
        i = sigmoid(x @ wi + h @ ui + bi)
        f = sigmoid(x @ wf + h @ uf + bf)
        g = tanh(x @ wg + h @ ug + bg)
        o = sigmoid(x @ wo + h @ uo + bo)
        c = f * c + i * g
        h = o * tanh(c)
        t += 1
    return sum(h @ wout)

seed(0)
xs = randn(100, 1, 8)
p = (randn(8, 32) * 0.1, randn(8, 32) * 0.1, randn(8, 32) * 0.1, randn(8, 32) * 0.1,
     randn(32, 32) * 0.1, randn(32, 32) * 0.1, randn(32, 32) * 0.1, randn(32, 32) * 0.1,
     zeros(32), zeros(32), zeros(32), zeros(32), randn(32, 1) * 0.1)
steps = 30
for step in range(steps):
    g = grad(loss)(p, xs)
    wi, wf, wg, wo, ui, uf, ug, uo, bi, bf, bg, bo, wout = p
    gwi, gwf, gwg, gwo, gui, guf, gug, guo, gbi, gbf, gbg, gbo, gwout = g
    p = (wi - 0.01 * gwi, wf - 0.01 * gwf, wg - 0.01 * gwg, wo - 0.01 * gwo,
         ui - 0.01 * gui, uf - 0.01 * guf, ug - 0.01 * gug, uo - 0.01 * guo,
         bi - 0.01 * gbi, bf - 0.01 * gbf, bg - 0.01 * gbg, bo - 0.01 * gbo, wout - 0.01 * gwout)
print(loss(p, xs))
