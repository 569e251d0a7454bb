# Two gate matmuls of x_t in a time loop nested in a training-style loop that changes the
# weights once per outer step, on one row (tests/opt/horizontal-nested.dlmir).
seed(1)
xs = randn(3, 1, 3)
wa = randn(3, 4)
wb = randn(3, 4)
for step in range(2):
    h = zeros(1, 4)
    t = 0
    while t < 3:
        x = xs[t]
        h = tanh(x @ wa) + sigmoid(x @ wb) * h
        t += 1
    print(sum(h))
    wa = wa * 0.9
    wb = wb + 0.1
