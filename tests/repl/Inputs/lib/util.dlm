def offset(k):
    return k + 2
