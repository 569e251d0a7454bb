# optim: optimizers over parameter tuples, with explicit state.
#
# Arithmetic on tuples applies leaf by leaf (docs/language.md "Tuples"), so `params - lr * grads`
# updates a whole parameter set of any nesting. Each optimizer takes and returns its state.

# Plain gradient descent: returns the new parameters.
def sgd(params, grads, lr):
    return params - lr * grads

# The state of momentum and adam starts at zero, with the parameters' structure.
def zeros_like(params):
    return params * 0.0

# Heavy-ball momentum: returns (params, velocity).
def momentum(params, grads, velocity, lr, beta=0.9):
    velocity = beta * velocity + grads
    return params - lr * velocity, velocity

# Adam (Kingma & Ba): state is (m, v, t) with t the number of steps taken so far.
def adam_init(params):
    return zeros_like(params), zeros_like(params), 0

def adam(params, grads, state, lr=0.001, b1=0.9, b2=0.999, eps=1e-8):
    m, v, t = state
    t = t + 1
    m = b1 * m + (1.0 - b1) * grads
    v = b2 * v + (1.0 - b2) * (grads * grads)
    mhat = m / (1.0 - b1 ** t)
    vhat = v / (1.0 - b2 ** t)
    return params - lr * mhat / (sqrt(vhat) + eps), (m, v, t)
