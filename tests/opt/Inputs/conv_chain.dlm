# Two conv chains and their gradients for the layout pass (tests/opt/layout-run.test): 8 -> 32
# -> 32 channels (NHWC pays: the chain and its backward move), and a 1-channel first layer
# like examples/fashion_mnist_cnn.dlm's (that convolution stays NCHW, the next one moves), with
# avg pooling. Every level and engine must print the same bits (tests/opt/layout-run.test).
import nn

seed(11)
x = randn(4, 8, 10, 10)
c1 = nn.init_conv(8, 32, 3)
c2 = nn.init_conv(32, 32, 3)

def deep(c1, c2, x):
    h = max_pool2d(relu(nn.conv(c1, x, padding=1)), 2)
    return sum(relu(nn.conv(c2, h, padding=1)) * 0.5)

print(deep(c1, c2, x))
g1, g2 = grad(deep, argnums=(0, 1))(c1, c2, x)
print(sum(g1[0]), sum(g1[1]), sum(g2[0] * g2[0]), sum(g2[1]))

img = randn(4, 1, 12, 12)
d1 = nn.init_conv(1, 16, 5)
d2 = nn.init_conv(16, 32, 3)

def mnistish(d1, d2, img):
    h = avg_pool2d(relu(nn.conv(d1, img, padding=2)), 2)
    return sum(relu(nn.conv(d2, h, padding=1)))

print(mnistish(d1, d2, img))
e1, e2 = grad(mnistish, argnums=(0, 1))(d1, d2, img)
print(sum(e1[0] * e1[0]), sum(e1[1]), sum(e2[0] * e2[0]), sum(e2[1]))
