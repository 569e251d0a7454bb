# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# The main example (examples/fashion_mnist_mlp.dlm) at reduced size: 40 batches of 128 for two
# epochs, each in a new random order (data.shuffle), tested on 2000 test images; both engines
# must print the same.
import nn
import optim
import data
import metrics

def loss_fn(params, x, y):
    return cross_entropy(nn.mlp(params, x), y)

seed(0)
x_train, y_train = data.fashion_mnist("train")
x_test, y_test = data.fashion_mnist("test")
x_test = x_test[0:2000]
y_test = y_test[0:2000]
params = nn.init_mlp(784, 256, 10)
state = optim.adam_init(params)
for epoch in range(2):
    x_epoch, y_epoch = data.shuffle(x_train, y_train)
    for i in range(40):
        x = data.batch(x_epoch, i, 128)
        y = data.batch(y_epoch, i, 128)
        g = grad(loss_fn)(params, x, y)
        params, state = optim.adam(params, g, state, lr=0.001)
    acc = metrics.accuracy(nn.mlp(params, x_test), y_test)
    print("epoch", epoch + 1, "accuracy", metrics.rounded(acc))
    assert acc > 0.65, "the MLP should learn within 40 batches"
# CHECK: epoch 1 accuracy 0.{{[0-9]+}}
# CHECK: epoch 2 accuracy 0.{{[0-9]+}}
