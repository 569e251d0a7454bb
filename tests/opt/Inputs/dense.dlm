# Dense layers: relu(x @ w1 + b1), then a linear layer (matmul + bias, no relu); a product read
# twice, which is not fused; and a gradient, whose backward reads the pre-activation (relu's
# rule), so there only the matmul and the bias fuse.
seed(5)
x = randn(8, 6)
w1 = randn(6, 5)
b1 = randn(5)
w2 = randn(5, 3)
b2 = randn(3)
w3 = randn(6, 2)
b3 = randn(2)

def net(w, b, x):
    return sum(relu(x @ w + b) * 0.5)

h = relu(x @ w1 + b1)
y = h @ w2 + b2
p = x @ w3
print(y)
print(p + b3, p)
print(grad(net)(w2, b2, h))
