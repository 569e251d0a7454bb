# nn: layers and initialisers as functions over parameter tuples.
#
# A layer's parameters are a tuple — linear: (w, b), conv: (w, b) — and a model's parameters
# a tuple of layers, so gradients and optimizer states have the same structure (docs/language.md
# "Tuples"). Initialisers take the sizes and return fresh parameters; layers take the
# parameters first, then the input.

# He initialisation for a layer followed by relu: weights ~ N(0, 2 / n_in), zero bias.
def init_linear(n_in, n_out):
    w = randn(n_in, n_out) * sqrt(2.0 / n_in)
    b = zeros(n_out)
    return w, b

# x @ w + b for x of shape [batch, n_in].
def linear(params, x):
    w, b = params
    return x @ w + b

# A two-layer perceptron: (layer1, layer2).
def init_mlp(n_in, n_hidden, n_out):
    return init_linear(n_in, n_hidden), init_linear(n_hidden, n_out)

def mlp(params, x):
    l1, l2 = params
    return linear(l2, relu(linear(l1, x)))

# A 2-d convolution layer (NCHW input, OIHW weights).
def init_conv(c_in, c_out, k):
    w = randn(c_out, c_in, k, k) * sqrt(2.0 / (c_in * k * k))
    b = zeros(c_out)
    return w, b

def conv(params, x, stride=1, padding=0):
    w, b = params
    y = conv2d(x, w, stride=stride, padding=padding)
    return y + reshape(b, 1, -1, 1, 1)

# Mean cross-entropy of logits [N, C] against integer labels [N].
def loss(logits, labels):
    return cross_entropy(logits, labels)

# Fraction of rows whose largest logit is the label.
def accuracy(logits, labels):
    hits = argmax(logits, axis=1) == labels
    return mean(hits.astype(f32))
