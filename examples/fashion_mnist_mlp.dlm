# examples/fashion_mnist_mlp.dlm — the main example (`make run`).
#
# A multi-layer perceptron 784-256-10 trained on Fashion-MNIST (Debian's dataset-fashion-mnist)
# with mini-batches of 128 in a new random order each epoch (data.shuffle) and Adam (learning
# rate 0.002, times 0.7 each epoch); it prints the test accuracy after every epoch. A progress
# line (`progress`) goes to stderr. The initial weights are saved next to the trained ones so
# that bench/mnist/twin.py trains the very same model in PyTorch (it reproduces the shuffles).
import nn
import optim
import data
import metrics

def loss_fn(params, x, y):
    return cross_entropy(nn.mlp(params, x), y)

seed(0)
x_train, y_train = data.fashion_mnist("train")
x_test, y_test = data.fashion_mnist("test")
params = nn.init_mlp(784, 256, 10)
save("fashion_mnist_mlp.init.safetensors", params)
state = optim.adam_init(params)
batches = data.num_batches(x_train, 128)
epochs = 8
for epoch in range(epochs):
    lr = optim.exponential_decay(0.002, epoch, 0.7)
    x_epoch, y_epoch = data.shuffle(x_train, y_train)
    for i in range(batches):
        x = data.batch(x_epoch, i, 128)
        y = data.batch(y_epoch, i, 128)
        g = grad(loss_fn)(params, x, y)
        params, state = optim.adam(params, g, state, lr=lr)
        progress(i + 1, batches)
    acc = metrics.accuracy(nn.mlp(params, x_test), y_test)
    print("epoch", epoch + 1, "accuracy", metrics.rounded(acc))
save("fashion_mnist_mlp.safetensors", params)
