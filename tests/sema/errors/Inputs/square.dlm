# A library function for same-argument-twice.dlm: both operands of the product are its parameter.
def square(w):
    return w @ w
