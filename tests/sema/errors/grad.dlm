# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# grad/value_and_grad are typed: the differentiated function must return a scalar (the error
# points at its return), argnums must name an argument, and only float values differentiate.
def loss(w, x):
    return sum(x @ w)

def not_scalar(w, x):
    return x @ w  # expected-error {{grad: 'not_scalar' must return a scalar, but it returns f32[2, 4]}}

def count(w, n):
    return sum(w) * sum(n)

w = zeros(3, 4)
x = zeros(2, 3)
g1 = grad(not_scalar)(w, x)
# expected-note@-1 {{differentiated here}}
g2 = grad(loss, argnums=2)  # expected-error {{argnums 2 is out of range: 'loss' takes 2 arguments}}
# expected-note@-14 {{'loss' is defined here}}
labels = zeros(4, dtype=i64)
g3 = grad(count, argnums=1)(w, labels)  # expected-error {{grad: argument 1 of 'count' is i64[4], which cannot be differentiated (only float tensors, floats and tuples of them)}}
# expected-note@-1 {{differentiated here}}
g4 = grad(w)  # expected-error {{'grad' needs a function, found f32[3, 4]}}
g5 = grad(loss, argnums=w)  # expected-error {{'argnums' of 'grad' must be a constant int, found f32[3, 4]}}
c = checkpoint(3)  # expected-error {{'checkpoint' needs a function, found int}}
