# dist: data-parallel training across the ranks of a run (docs/dist.md).
#
# Every rank runs the same program on its own shard of the data and averages the gradients, so
# all ranks take the same step: the step one process would take on the whole batch. In a plain
# run (one rank) each function is the identity or its one-rank answer.

# Whether this is rank 0, the rank that prints, saves and checkpoints.
def is_main():
    return rank() == 0

# This rank's rows of x: the rows split into world_size() contiguous shards whose sizes differ
# by at most one (rank r takes rows [r * n // k, (r + 1) * n // k) of n over k ranks).
def shard(x):
    n = len(x)
    k = world_size()
    r = rank()
    return x[r * n // k:(r + 1) * n // k]

# The mean of grads (a tensor or a tuple of them) over the ranks: with equal shards, the
# gradient of the mean loss over the whole batch.
def average(grads):
    return allreduce(grads, op="mean")

# The gradient of the mean loss over all the ranks' examples when rank r's grads are the
# gradient of the mean over its `count` examples (uneven shards): the ranks' grads weighted by
# their counts.
def weighted_average(grads, count):
    total = allreduce(float(count))
    return allreduce((float(count) / total) * grads)
