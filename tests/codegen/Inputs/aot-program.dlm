# An AOT test program: a loop with a branch, tensor kernels, an in-place elementwise update,
# random numbers and prints of scalars and tensors.
def layer(x, w):
    return relu(x @ w)

seed(7)
w = randn(4, 3)
x = randn(2, 4)
acc = zeros(2, 3)
steps = 0
for i in range(5):
    y = layer(x, w)
    if i % 2 == 0:
        acc = acc + y
    else:
        acc = acc - 0.5 * y
    steps += 1
print("acc", acc)
print("sum", sum(acc), "steps", steps, 2.5 * steps)
