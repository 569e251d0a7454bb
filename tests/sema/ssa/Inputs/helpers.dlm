import nn

def loss_of(params, x, labels):
    return nn.loss(nn.mlp(params, x), labels)

def twice(x):
    return x + x
