# metrics: losses and scores of a batch of predictions.
#
# Each takes the predictions first, then the targets, and returns a 0-d f32 tensor (the mean
# over the batch), so a loss can be differentiated with grad() and a score printed.

# Mean cross-entropy of logits [N, C] against integer labels [N] (softmax inside).
def cross_entropy_loss(logits, labels):
    return cross_entropy(logits, labels)

# Mean negative log-likelihood of log-probabilities [N, C] against integer labels [N].
def nll(log_probs, labels):
    n = log_probs.shape[1]
    picked = log_probs * onehot(labels, n)
    return -sum(picked) / len(log_probs)

# Mean squared error over every element.
def mse_loss(pred, target):
    return mse(pred, target)

# Fraction of rows whose largest logit is the label.
def accuracy(logits, labels):
    hits = argmax(logits, axis=1) == labels
    return mean(hits.astype(f32))

# A 0-d tensor (or a number) as a float rounded to `digits` decimals, for printing
# (`accuracy 0.8812`): a float prints as a plain number, a 0-d tensor as tensor(...).
def rounded(x, digits=4):
    scale = 10.0 ** digits
    return float((x.astype(f64) * scale + 0.5) // 1.0 / scale)

# One-hot rows [N, n] (f32) for integer labels [N].
def onehot(labels, n):
    return (reshape(labels, -1, 1) == reshape(arange(n, dtype=i64), 1, n)).astype(f32)
