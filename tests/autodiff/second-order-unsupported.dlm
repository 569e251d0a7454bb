# RUN: %dlmc --verify-diagnostics %s
# A second derivative through an op whose backward helper has no rule of its own (conv2d's
# conv2d_grad_input and conv2d_grad_weight, max_pool2d's max_pool2d_grad, cross_entropy's
# cross_entropy_grad) is an error at the forward op, never a silent zero (docs/autodiff.md
# "Gradient rules"). conv2d's helpers were not recognised as helpers (only names ending in
# '_grad' were), so grad(grad(f)) through conv2d printed zeros for either operand.

def conv_w(w, x):
    return sum(conv2d(x, w) * conv2d(x, w))  # expected-error {{cannot differentiate 'conv2d_grad_weight' (a second derivative through this op is not supported)}}

def conv_x(x, w):
    return sum(conv2d(x, w) * conv2d(x, w))  # expected-error {{cannot differentiate 'conv2d_grad_input' (a second derivative through this op is not supported)}}

def pool(x):
    return sum(max_pool2d(x * x, 2))  # expected-error {{cannot differentiate 'max_pool2d_grad' (a second derivative through this op is not supported)}}

def xent(z):
    return cross_entropy(z * z, tensor([0, 2]))  # expected-error {{cannot differentiate 'cross_entropy_grad' (a second derivative through this op is not supported)}}

def outer_w(w, x):
    return sum(grad(conv_w)(w, x))

def outer_x(x, w):
    return sum(grad(conv_x)(x, w))

def outer_pool(x):
    return sum(grad(pool)(x))

def outer_xent(z):
    return sum(grad(xent)(z))

x = randn(1, 2, 4, 4)
w = randn(3, 2, 3, 3)
print(grad(outer_w)(w, x))  # expected-note {{while differentiating 'outer_w' here}}
print(grad(outer_x)(x, w))  # expected-note {{while differentiating 'outer_x' here}}
print(grad(outer_pool)(x))  # expected-note {{while differentiating 'outer_pool' here}}
print(grad(outer_xent)(randn(2, 3)))  # expected-note {{while differentiating 'outer_xent' here}}
