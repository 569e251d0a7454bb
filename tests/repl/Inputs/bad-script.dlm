def helper(k):
    return k + 3

x = helper(1)
y = x + ones(2) @ ones(3)
