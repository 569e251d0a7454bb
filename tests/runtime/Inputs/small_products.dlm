# Products OpenBLAS runs on one thread: a recurrent step's (dlm's small path) and a 32^3 GEMM.
seed(1)
w = randn(8, 32)
u = randn(32, 32)
h = zeros(1, 32)
for t in range(4):
    h = tanh(randn(1, 8) @ w + h @ u)
print(sum(h @ u @ u))
