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

# Heavy-ball momentum: returns (params, velocity); velocity starts at zeros_like(params).
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

# Adam's state as tensors only, for a checkpoint: save() writes tensors, and t is an int, so
# it goes in as a 0-d i64 tensor. save(path, (params, optim.adam_state_to_tensors(state)))
# writes a checkpoint that training can resume from (examples/resume_training.dlm).
def adam_state_to_tensors(state):
    m, v, t = state
    return m, v, full((), t, dtype=i64)

# The inverse: a state read back with
# load(path, like=optim.adam_state_to_tensors(optim.adam_init(params))), ready for adam().
def adam_state_from_tensors(saved):
    m, v, t = saved
    return m, v, int(t)

# AdamW (Loshchilov & Hutter): Adam with decoupled weight decay; same state as adam.
def adamw(params, grads, state, lr=0.001, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.01):
    decayed = params - (lr * weight_decay) * params
    return adam(decayed, grads, state, lr=lr, b1=b1, b2=b2, eps=eps)

# The L2 norm of all the tensors of a model's gradients together (a 0-d f32 tensor), for the
# nn convention: a tuple of layers, each a tuple of tensors.
def global_norm(grads):
    total = zeros()
    for layer in grads:
        for leaf in layer:
            total = total + sum(leaf * leaf)
    return sqrt(total)

# Scales grads so that their global norm is at most max_norm.
def clip_by_global_norm(grads, max_norm):
    n = global_norm(grads)
    return grads * (max_norm / maximum(n, max_norm))

# Learning-rate schedules: the rate at step (or epoch) t, a float.
def step_decay(lr, t, every, factor=0.5):
    return lr * factor ** (t // every)

def exponential_decay(lr, t, rate):
    return lr * rate ** t

def cosine_decay(lr, t, total, floor=0.0):
    return floor + (lr - floor) * 0.5 * (1.0 + cos(3.141592653589793 * t / total))

def linear_warmup(lr, t, warmup):
    return lr * minimum(1.0, (t + 1) / warmup)
