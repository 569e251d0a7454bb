# Two gate matmuls of one state by loop-invariant weights in each step (an LSTM's gates,
# written out) of one row, printed, and differentiated: the forward loop of the gradient fuses too.
seed(1)
x = randn(1, 3)
wa = randn(3, 3) * 0.5
wb = randn(3, 3) * 0.5

def run(wa, wb, h):
    for i in range(3):
        a = h @ wa
        b = h @ wb
        h = tanh(a) * sigmoid(b)
    return h

def loss(wa, wb, h):
    return sum(run(wa, wb, h))

print(run(wa, wb, x))
print(grad(loss, argnums=2)(wa, wb, x))
