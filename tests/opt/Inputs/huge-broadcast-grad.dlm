# The gradient of a sum broadcasts its seed to the summed shape (constfold-huge-view.dlmir).
def f(w):
    a = zeros(9223372036854775807, 3) * w
    return sum(a)

print(grad(f)(ones(1)))
