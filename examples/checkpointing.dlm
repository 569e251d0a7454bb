# examples/checkpointing.dlm — gradient checkpointing on a deep network, and what it saves.
#
# A residual MLP on Fashion-MNIST: a stem 784 -> 128, six blocks of four residual layers
# h = h + relu(h @ w), each block's weights one tensor [4, 128, 128] stepped through by a loop,
# and a head 128 -> 10. To differentiate the loop, `grad` pushes what the backward pass needs
# from every layer (its input, its pre-activation and its weight slice) onto stacks, so a plain
# gradient holds the activations of all 24 layers at once. With `checkpoint(block)` around each
# block, the forward pass keeps only the six blocks' inputs; the backward pass recomputes one
# block at a time when it reaches it, then differentiates that recomputation and frees it. The
# most held at once is then six block inputs plus one block's four layers — about 2·sqrt(24)
# activations instead of 2·24 — for one more forward pass of arithmetic, and the gradient is
# the same bit for bit.
#
# The program trains one phase without and one with checkpointing and prints, for each, the
# most tensor memory held at once above what stays allocated (parameters, optimiser state,
# data), from the runtime's counters read by memory_stats(...). `steps` and `train_rows` can
# be lowered for a quick run (tests/examples/checkpointing.test does that, on both engines).
# bench/RESULTS.md "Checkpointing" has the numbers.
import nn
import optim
import data
import metrics

batch_size = 1024
steps = 30
train_rows = 60000

# Four residual layers, ws[0] .. ws[3].
def block(ws, h):
    for j in range(4):
        h = h + relu(h @ ws[j])
    return h

def forward(params, x):
    stem, blocks, head = params
    h = relu(nn.linear(stem, x))
    for ws in blocks:
        h = block(ws, h)
    return nn.linear(head, h)

def forward_checkpointed(params, x):
    stem, blocks, head = params
    h = relu(nn.linear(stem, x))
    for ws in blocks:
        h = checkpoint(block)(ws, h)
    return nn.linear(head, h)

def loss_plain(params, x, y):
    return cross_entropy(forward(params, x), y)

def loss_checkpointed(params, x, y):
    return cross_entropy(forward_checkpointed(params, x), y)

def train(loss_fn, params, state, x_train, y_train, first_batch, steps, batch_size):
    batches = data.num_batches(x_train, batch_size)
    for step in range(steps):
        i = (first_batch + step) % batches
        g = grad(loss_fn)(params, data.batch(x_train, i, batch_size),
                          data.batch(y_train, i, batch_size))
        params, state = optim.adam(params, g, state, lr=0.001)
    return params, state

# The largest difference between two gradients of the model (tuple arithmetic is leaf by leaf).
def max_difference(a, b):
    stem, blocks, head = a - b
    worst = maximum(maximum(max(abs(stem[0])), max(abs(stem[1]))),
                    maximum(max(abs(head[0])), max(abs(head[1]))))
    for ws in blocks:
        worst = maximum(worst, max(abs(ws)))
    return worst

# Bytes as MiB with two decimals.
def mebibytes(n):
    return n * 100 // (1024 * 1024) / 100

seed(0)
x_train, y_train = data.fashion_mnist("train")
x_test, y_test = data.fashion_mnist("test")
x_train = x_train[0:train_rows]
y_train = y_train[0:train_rows]
# Small residual weights keep the activations' scale steady through the 24 layers.
blocks = (randn(4, 128, 128) * 0.01, randn(4, 128, 128) * 0.01, randn(4, 128, 128) * 0.01,
          randn(4, 128, 128) * 0.01, randn(4, 128, 128) * 0.01, randn(4, 128, 128) * 0.01)
params = nn.init_linear(784, 128), blocks, nn.init_linear(128, 10)
state = optim.adam_init(params)

# Checkpointing changes where values are computed, not what: the gradients are equal.
x = data.batch(x_train, 0, batch_size)
y = data.batch(y_train, 0, batch_size)
same = max_difference(grad(loss_plain)(params, x, y), grad(loss_checkpointed)(params, x, y))
print("largest gradient difference with and without checkpoint:", same)

# memory_stats(...) reads the runtime's counters once its arguments exist and starts a new
# window: the peak of the next reading is the most memory held at once in between. It is
# ordered with the other effects (print), but pure computations that do not depend on it may
# run before it on the graph executor; `if held >= 0:` (always true) makes each phase wait for
# the reading that starts it. A phase's baseline is what is still held when it ends
# (parameters, optimiser state, data), so `peak - held` is what its steps needed on top. Both
# engines free a tensor after its last use, so the training data are passed to every reading:
# they stay held until it, and the baseline is the same at both ends of a phase.
held, _ = memory_stats(params, state, x_train, y_train, same)
if held >= 0:
    params, state = train(loss_plain, params, state, x_train, y_train, 0, steps, batch_size)
held_plain, peak_plain = memory_stats(params, state, x_train, y_train)
if held_plain >= 0:
    params, state = train(loss_checkpointed, params, state, x_train, y_train, steps, steps,
                          batch_size)
held_checkpointed, peak_checkpointed = memory_stats(params, state, x_train, y_train)
extra_plain = peak_plain - held_plain
extra_checkpointed = peak_checkpointed - held_checkpointed
print("26 layers, batches of", batch_size, "rows,", steps, "steps per phase")
print("peak extra memory without checkpoint:", mebibytes(extra_plain), "MiB")
print("peak extra memory with checkpoint:   ", mebibytes(extra_checkpointed), "MiB")
print("checkpointing used less memory:", extra_checkpointed < extra_plain)
if held_checkpointed >= 0:
    acc = metrics.accuracy(forward(params, x_test), y_test)
    print("test accuracy after", 2 * steps, "steps:", metrics.rounded(acc))
