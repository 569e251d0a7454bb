# nn: layers and initialisers as functions over parameter tuples.
#
# A layer's parameters are a tuple — linear: (w, b), conv: (w, b), lstm: (wx, wh, b) — and a
# model's parameters a tuple of layers, so gradients and optimizer states have the same
# structure (docs/language.md "Tuples"). Initialisers take the sizes and return fresh
# parameters; layers take the parameters first, then the input. docs/stdlib.md lists them all.

# --- initialisers ---------------------------------------------------------------------------

# He (Kaiming) normal weights for a layer followed by relu: N(0, 2 / n_in).
def he_normal(n_in, n_out):
    return randn(n_in, n_out) * sqrt(2.0 / n_in)

# Xavier (Glorot) uniform weights for tanh/sigmoid layers: U(-a, a), a = sqrt(6 / (n_in + n_out)).
def xavier_uniform(n_in, n_out):
    a = sqrt(6.0 / (n_in + n_out))
    return (rand(n_in, n_out) * 2.0 - 1.0) * a

# Uniform weights U(lo, hi).
def uniform(n_in, n_out, lo=-0.1, hi=0.1):
    return rand(n_in, n_out) * (hi - lo) + lo

# --- dense layers ---------------------------------------------------------------------------

# A linear layer (w [n_in, n_out] He-initialised, b [n_out] zero).
def init_linear(n_in, n_out):
    w = he_normal(n_in, n_out)
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

# A three-layer perceptron: (layer1, layer2, layer3).
def init_mlp3(n_in, n_hidden1, n_hidden2, n_out):
    return init_linear(n_in, n_hidden1), init_linear(n_hidden1, n_hidden2), init_linear(n_hidden2, n_out)

def mlp3(params, x):
    l1, l2, l3 = params
    return linear(l3, relu(linear(l2, relu(linear(l1, x)))))

# --- convolution ----------------------------------------------------------------------------

# A 2-d convolution layer (NCHW input, OIHW weights).
def init_conv(c_in, c_out, k):
    w = randn(c_out, c_in, k, k) * sqrt(2.0 / (c_in * k * k))
    b = zeros(c_out)
    return w, b

def conv(params, x, stride=1, padding=0):
    w, b = params
    y = conv2d(x, w, stride=stride, padding=padding)
    return y + reshape(b, 1, -1, 1, 1)

# --- recurrent cells ------------------------------------------------------------------------

# An LSTM cell: wx [n_in, 4h], wh [h, 4h], b [4h] (forget-gate bias 1).
def init_lstm(n_in, n_hidden):
    wx = xavier_uniform(n_in, 4 * n_hidden)
    wh = xavier_uniform(n_hidden, 4 * n_hidden)
    b = concat((zeros(n_hidden), ones(n_hidden), zeros(2 * n_hidden)))
    return wx, wh, b

# One step: (h, c) -> (h', c') for x [batch, n_in], h and c [batch, n_hidden].
def lstm_cell(params, x, h, c):
    wx, wh, b = params
    z = x @ wx + h @ wh + b
    i, f, g, o = chunk(z, 4, axis=1)
    c = sigmoid(f) * c + sigmoid(i) * tanh(g)
    h = sigmoid(o) * tanh(c)
    return h, c

# A GRU cell: wx [n_in, 3h], wh [h, 3h], b [3h].
def init_gru(n_in, n_hidden):
    wx = xavier_uniform(n_in, 3 * n_hidden)
    wh = xavier_uniform(n_hidden, 3 * n_hidden)
    b = zeros(3 * n_hidden)
    return wx, wh, b

# One step: h -> h' for x [batch, n_in], h [batch, n_hidden].
def gru_cell(params, x, h):
    wx, wh, b = params
    xr, xz, xn = chunk(x @ wx + b, 3, axis=1)
    hr, hz, hn = chunk(h @ wh, 3, axis=1)
    r = sigmoid(xr + hr)
    z = sigmoid(xz + hz)
    n = tanh(xn + r * hn)
    return (1.0 - z) * n + z * h

# --- regularisation and normalisation -------------------------------------------------------

# Inverted dropout dropping `percent` % of the elements while training (an int: the
# rate must be a compile-time constant); the identity otherwise.
def dropout_layer(x, percent, training=True):
    if training:
        return dropout(x, percent / 100)
    return x

# Layer norm over the last axis with gain and bias (init_layer_norm gives ones and zeros).
def init_layer_norm(n):
    return ones(n), zeros(n)

def layer_norm(params, x, eps=1e-5):
    gain, bias = params
    mu = mean(x, axis=-1, keepdims=True)
    var = mean((x - mu) * (x - mu), axis=-1, keepdims=True)
    return (x - mu) / sqrt(var + eps) * gain + bias

# Batch norm (training mode) over the batch axis: each feature of x [batch, n] is normalised
# with the batch's own mean and variance, then scaled and shifted (init_batch_norm gives
# ones and zeros). For conv feature maps [batch, c, h, w] use batch_norm2d. There are no
# running averages: at test time, normalise with statistics of a large batch the same way.
def init_batch_norm(n):
    return ones(n), zeros(n)

def batch_norm(params, x, eps=1e-5):
    gain, bias = params
    mu = mean(x, axis=0, keepdims=True)
    var = mean((x - mu) * (x - mu), axis=0, keepdims=True)
    return (x - mu) / sqrt(var + eps) * gain + bias

def batch_norm2d(params, x, eps=1e-5):
    gain, bias = params
    mu = mean(x, axis=(0, 2, 3), keepdims=True)
    var = mean((x - mu) * (x - mu), axis=(0, 2, 3), keepdims=True)
    return (x - mu) / sqrt(var + eps) * reshape(gain, 1, -1, 1, 1) + reshape(bias, 1, -1, 1, 1)

# --- losses and scores (kept for older code; see metrics) -----------------------------------

# Mean cross-entropy of logits [N, C] against integer labels [N].
def loss(logits, labels):
    return cross_entropy(logits, labels)

# Fraction of rows whose largest logit is the label.
def accuracy(logits, labels):
    hits = argmax(logits, axis=1) == labels
    return mean(hits.astype(f32))

# --- PyTorch's layout -----------------------------------------------------------------------

# A linear layer stored as PyTorch's nn.Linear stores it: w [n_out, n_in], b [n_out] — what a
# state_dict's `fc.weight` and `fc.bias` hold, so load(path, like=..., names=("fc.weight",
# "fc.bias")) reads them as they are (docs/stdlib.md "PyTorch weights"). He weights, zero bias.
def init_torch_linear(n_in, n_out):
    w = he_normal(n_in, n_out)
    return w.T, zeros(n_out)

# x @ w.T + b for such a layer (x [batch, n_in]).
def torch_linear(params, x):
    w, b = params
    return x @ w.T + b
