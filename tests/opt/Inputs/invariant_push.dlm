# A loop whose body computes sigmoid(w) from the invariant w: autodiff pushes it every
# iteration (it is defined in the body, and the backward reads it twice: mul's and sigmoid's
# rules). After licm it is the same tensor each time, and ad-stacks drops the stack.
def f(w, x):
    s = x
    for i in range(5):
        s = s * sigmoid(w) + 0.5
    return sum(s * s)

seed(3)
w = randn(4)
x = randn(4)
gw, gx = grad(f, argnums=(0, 1))(w, x)
print(gw)
print(gx)
