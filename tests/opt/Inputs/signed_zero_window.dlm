# The gradient of z's first window has a -0.0 (the product with -0.0); summed with the other
# window's slice_grad it is +0.0, and so it must stay when the sum becomes a concat.
def f(z):
    a = z[:, 0:2]
    b = z[:, 2:5]
    return sum(a * tensor([-0.0, 2.0])) + sum(tanh(b))

x = tensor([[0.5, -1.0, 0.25, 2.0, -3.0]])
print(grad(f)(x))
print(tensor([-0.0, 1.0]))
