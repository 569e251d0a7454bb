# examples/fashion_mnist_dist.dlm — the Fashion-MNIST MLP trained data-parallel (docs/dist.md).
#
#   mpirun -np 2 dlm run examples/fashion_mnist_dist.dlm      # or alone: dlm run ...
#
# examples/fashion_mnist_mlp.dlm with each global batch of 128 split across the ranks: every
# rank reads the dataset and shuffles it the same way (the same seed), takes its shard of each
# batch (dist.shard), and the ranks' gradients are averaged, weighted by their shard's size
# (dist.weighted_average), so every rank takes the same Adam step, the one a single process
# takes on the whole batch. Rank 0 (dist.is_main) draws the progress line, prints the test
# accuracy after every epoch and saves a checkpoint of the weights and Adam's state; save
# writes a temporary file and renames it, so a run killed while it writes leaves the previous
# checkpoint whole.
import nn
import optim
import data
import metrics
import dist

def loss_fn(params, x, y):
    return cross_entropy(nn.mlp(params, x), y)

seed(0)
x_train, y_train = data.fashion_mnist("train")
x_test, y_test = data.fashion_mnist("test")
params = nn.init_mlp(784, 256, 10)
state = optim.adam_init(params)
batches = data.num_batches(x_train, 128)
epochs = 8
for epoch in range(epochs):
    lr = optim.exponential_decay(0.002, epoch, 0.7)
    x_epoch, y_epoch = data.shuffle(x_train, y_train)
    for i in range(batches):
        x = dist.shard(data.batch(x_epoch, i, 128))
        y = dist.shard(data.batch(y_epoch, i, 128))
        g = dist.weighted_average(grad(loss_fn)(params, x, y), len(x))
        params, state = optim.adam(params, g, state, lr=lr)
        if dist.is_main():
            progress(i + 1, batches)
    if dist.is_main():
        acc = metrics.accuracy(nn.mlp(params, x_test), y_test)
        print("epoch", epoch + 1, "accuracy", metrics.rounded(acc))
        save("fashion_mnist_dist.safetensors", (params, optim.adam_state_to_tensors(state)))
