# examples/resume_training.dlm — a training loop written by hand, checkpointed and resumed.
#
# An MLP learns y = sin(3x) from 256 points in [-1, 1]. The loop is plain code: value_and_grad
# gives the loss and the gradient, the gradient is clipped, Adam updates the parameters. After
# 100 steps the parameters and Adam's state (m, v and the step count) go into one checkpoint; a
# second run starts from that file and takes 100 more steps, ending exactly where one
# uninterrupted 200-step run ends. Finally a `while` loop trains until the loss is below a
# target, an exit only known at run time.
import nn
import optim
import metrics

def loss_fn(params, x, y):
    return metrics.mse_loss(nn.mlp(params, x), y)

# `steps` Adam steps from (params, state); returns both, and the last loss.
def train(params, state, x, y, steps):
    loss = zeros()
    for i in range(steps):
        loss, g = value_and_grad(loss_fn)(params, x, y)
        g = optim.clip_by_global_norm(g, 1.0)
        params, state = optim.adam(params, g, state, lr=0.01)
    return params, state, loss

seed(0)
x = rand(256, 1) * 2.0 - 1.0
y = sin(3.0 * x)
init = nn.init_mlp(1, 32, 1)
print("initial loss", metrics.rounded(loss_fn(init, x, y)))

# One run of 200 steps, for comparison.
straight, _, _ = train(init, optim.adam_init(init), x, y, 200)

# 100 steps, then a checkpoint with everything needed to go on.
params, state, loss = train(init, optim.adam_init(init), x, y, 100)
print("step 100 loss", metrics.rounded(loss))
save("resume_training.safetensors", (params, optim.adam_state_to_tensors(state)))

# Resuming: `like=` gives the types (a fresh model and state will do); the file gives the values.
like = (init, optim.adam_state_to_tensors(optim.adam_init(init)))
params, saved_state = load("resume_training.safetensors", like=like)
state = optim.adam_state_from_tensors(saved_state)
print("resumed at step", state[2])
params, state, loss = train(params, state, x, y, 100)
print("step", state[2], "loss", metrics.rounded(loss))
difference = optim.global_norm(params - straight)   # over every weight and bias
print("resumed run equals the uninterrupted one:", bool(difference == 0.0))

# Train on until the loss is below a target: the number of steps is only known at run time.
steps = 0
loss = loss_fn(params, x, y)
while loss > 0.001 and steps < 2000:
    loss, g = value_and_grad(loss_fn)(params, x, y)
    params, state = optim.adam(params, g, state, lr=0.005)
    steps += 1
print("below 0.001:", bool(loss <= 0.001), "after", steps, "more steps")
