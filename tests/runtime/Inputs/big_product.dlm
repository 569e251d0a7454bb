# A product OpenBLAS threads: [256, 512] x [512, 256] (m*n*k = 2^25).
seed(1)
a = randn(256, 512)
b = randn(512, 256)
print(sum(a @ b) > -1e9)
