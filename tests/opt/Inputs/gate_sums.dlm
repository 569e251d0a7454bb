# Two gates of a recurrent step, each the sum of a product of x_t and a product of h
# (tests/opt/horizontal-sums.dlmir): both pairs of products fuse, and so do the two sums.
seed(2)
xs = randn(3, 1, 3)
wa = randn(3, 4)
wb = randn(3, 4)
ua = randn(4, 4)
ub = randn(4, 4)
h = zeros(1, 4)
t = 0
while t < 3:
    x = xs[t]
    h = tanh(x @ wa + h @ ua) * sigmoid(x @ wb + h @ ub)
    t += 1
print(h)
