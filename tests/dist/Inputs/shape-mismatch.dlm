# Rank r reduces r + 2 elements: the ranks disagree on the shape of collective #2.
barrier()
a = allreduce(ones(rank() + 2))
print(a)
