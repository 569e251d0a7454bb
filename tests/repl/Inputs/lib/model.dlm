import ./util

def scaled(k):
    return util.offset(k) * 10

first = scaled(1)
print("model loaded", first)
