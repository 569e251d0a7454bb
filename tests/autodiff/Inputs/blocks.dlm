# 20 calls of a 100-iteration block, stored in full (no checkpoint).
def block(w: float, h: float):
    for i in range(100):
        h = sin(h * w) + 0.5
    return h

def f(w: float, x: float):
    h = x
    for k in range(20):
        h = block(w, h)
    return h

print(grad(f)(1.3, 0.2))
