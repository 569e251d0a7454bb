# A split Fashion-MNIST does not have.
import data
x, y = data.fashion_mnist("valid")
print(len(x))
