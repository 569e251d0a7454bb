import ./cycle_b

def f(x):
    return x
