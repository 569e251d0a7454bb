# Dense layers: relu(x @ w1 + b1), then a linear layer (matmul + bias, no relu); a product read
# twice, which is not fused; a gradient (relu's rule masks by relu's output, so the relu
# fuses there too); and a conv layer with bias and relu.
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
img = randn(2, 1, 6, 6)
wc = randn(3, 1, 3, 3)
bc = randn(3)
print(relu(conv2d(img, wc, padding=1) + reshape(bc, 1, -1, 1, 1)))
