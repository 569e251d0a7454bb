# Rank 1 fails an assert between two collectives; rank 0 is then waiting in the second.
x = allreduce(tensor([1.0]))
assert rank() != 1, "rank 1 stops here"
y = allreduce(x)
print(y)
