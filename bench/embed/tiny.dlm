# The tiny def bench/embed measures calls of: its own work is one 1-element add.
def add(x, y):
    return x + y
