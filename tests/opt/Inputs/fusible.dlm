seed(7)
x = randn(3, 4)
b = tensor([0.5, -0.25, 1.0, 2.0])
y = relu(x * 0.5 - b) * x + exp(-x)
z = sigmoid(y) * 2.0 - tanh(x)
print(y)
print(z)
print(sum(z))
for i in range(3):
    x = relu(x + b) * 0.5 - 0.125
print(x)
