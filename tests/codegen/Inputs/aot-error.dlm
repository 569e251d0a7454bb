x = arange(4)
n = 2
while n < 10:
    n = n * 2
print("n", n)
print(x[n])
