# data: datasets and batching.
#
# Readers return tensors whose row count is only known at run time (a fresh symbolic dim).

# Fashion-MNIST from Debian's dataset-fashion-mnist ($DLM_DATA overrides the folder):
# split "train" or "test"; returns (images f32 [N, 784] in [0, 1], labels i64 [N]).
def fashion_mnist(split):
    return read_fashion_mnist(split)

# An IDX file (gzip'd or plain) as i32 with `rank` dimensions.
def load_idx(path, rank=1):
    return read_idx(path, rank)

# A numeric CSV file as [rows, cols] (a non-numeric first line is a header).
def load_csv(path, dtype=f32):
    return read_csv(path, dtype=dtype)

# Rows [i * size, (i + 1) * size) of x.
def batch(x, i, size):
    return x[i * size:(i + 1) * size]

# The number of whole batches of `size` rows in x.
def num_batches(x, size):
    return len(x) // size

# x and y (images and their labels, or any two tensors with the same number of rows) with
# their rows in one random order, drawn from the RNG stream: call it once per epoch for a new
# order. Costs one copy of each.
def shuffle(x, y):
    order = randperm(len(x))
    return gather(x, order), gather(y, order)

# The rows of x in a random order (one tensor).
def shuffle_rows(x):
    return gather(x, randperm(len(x)))

# One-hot rows [N, n] for integer labels [N].
def one_hot(labels, n):
    return (reshape(labels, -1, 1) == reshape(arange(n, dtype=i64), 1, n)).astype(f32)
