# Rank 0 calls a barrier that the others do not: collective #1 is a barrier on rank 0 and an
# allreduce elsewhere.
if rank() == 0:
    barrier()
b = allreduce(tensor([1.0]))
print(b)
