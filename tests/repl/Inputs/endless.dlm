x = 1
while x > 0:
    x = x + 1
print(x)
