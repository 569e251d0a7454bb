def helper(k):
    return k + 3

from_script = helper(4)
print("loaded", from_script)
