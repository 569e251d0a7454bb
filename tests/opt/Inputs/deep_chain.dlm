# A deep chain of elementwise layers (no loop), differentiated: the backward reads every
# layer's value in reverse order, so without rematerialisation all of them are alive at the
# turn from forward to backward.
def deep(x):
    h = tanh(x)
    h = sin(h) * 1.5
    h = tanh(h)
    h = sin(h) * 1.5
    h = tanh(h)
    h = sin(h) * 1.5
    h = tanh(h)
    h = sin(h) * 1.5
    h = tanh(h)
    h = sin(h) * 1.5
    h = tanh(h)
    h = sin(h) * 1.5
    h = tanh(h)
    h = sin(h) * 1.5
    h = tanh(h)
    h = sin(h) * 1.5
    return sum(h)

seed(11)
x = randn(64, 64)
print(deep(x))
print(sum(grad(deep)(x)))
