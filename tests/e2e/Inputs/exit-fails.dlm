# Prints, then fails at run time.
x = tensor([1.0, 2.0, 3.0])
for i in range(5):
    print("step", i)
    print(x[i])
