x = ones(2, 3) * 2.0
print(relu(x @ ones(3, 2)))
