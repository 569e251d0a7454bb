# examples/fashion_mnist_cnn.dlm — a small convolutional network on Fashion-MNIST.
#
# conv 5x5 (1 -> 16 channels, padding 2) - relu - max-pool 2 - conv 5x5 (16 -> 32) - relu -
# max-pool 2 - linear 1568 -> 10, trained with Adam on batches of 64 in a new random order each
# epoch, the learning rate 0.0015 times 0.6 each epoch. Prints the test accuracy after each
# epoch (bench/RESULTS.md "Fashion-MNIST CNN" has the measured accuracies and times). `epochs` and `train_rows` can be lowered for a quick run (the test in
# tests/examples does that).
import nn
import optim
import data
import metrics

# `n` (a constant) is the batch size: conv2d's gradient needs static shapes.
def model(params, x, n):
    c1, c2, head = params
    x = reshape(x, n, 1, 28, 28)
    x = max_pool2d(relu(nn.conv(c1, x, padding=2)), 2)
    x = max_pool2d(relu(nn.conv(c2, x, padding=2)), 2)
    return nn.linear(head, reshape(x, n, 32 * 7 * 7))

def loss_fn(params, x, y):
    return cross_entropy(model(params, x, 64), y)

seed(0)
epochs = 4
train_rows = 60000
test_rows = 10000
x_train, y_train = data.fashion_mnist("train")
x_test, y_test = data.fashion_mnist("test")
x_train = x_train[0:train_rows]
y_train = y_train[0:train_rows]
params = nn.init_conv(1, 16, 5), nn.init_conv(16, 32, 5), nn.init_linear(32 * 7 * 7, 10)
state = optim.adam_init(params)
batches = data.num_batches(x_train, 64)
for epoch in range(epochs):
    lr = optim.exponential_decay(0.0015, epoch, 0.6)
    x_epoch, y_epoch = data.shuffle(x_train, y_train)
    for i in range(batches):
        g = grad(loss_fn)(params, data.batch(x_epoch, i, 64), data.batch(y_epoch, i, 64))
        params, state = optim.adam(params, g, state, lr=lr)
        progress(i + 1, batches)
    hits = zeros()
    for j in range(test_rows // 1000):
        logits = model(params, data.batch(x_test, j, 1000), 1000)
        hits = hits + metrics.accuracy(logits, data.batch(y_test, j, 1000)) * 1000.0
    print("epoch", epoch + 1, "accuracy", metrics.rounded(hits / test_rows))
