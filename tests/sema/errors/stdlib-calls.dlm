# RUN: not %dlmc --emit=ssa %s 2>&1 | FileCheck %s
# RUN: not %dlm run %s 2>&1 | FileCheck %s
# A compile-time error inside a stdlib function is reported at the user's call in this file,
# like a run-time one: notes name the arguments whose types clash (an element of a tuple
# argument by its index path, an int argument by its value), then the library lines from the
# call inwards ("inside 'F'"), one per stdlib function a nested call went through. Shape, dtype,
# structure and arity errors; nothing is reported at a stdlib line first.
import nn
import metrics
import optim

p = nn.init_linear(3, 4)
x = ones(2, 5)

# shape: the input's width is not the weight's height
y = nn.linear(p, x)
# CHECK: stdlib-calls.dlm:[[@LINE-1]]:5: error: matmul: 5 columns on the left vs 3 rows on the right (f32[2, 5] @ f32[3, 4])
# CHECK-NEXT: {{^}}y = nn.linear(p, x)
# CHECK-NEXT: {{^ *\^~+$}}
# CHECK-NEXT: stdlib-calls.dlm:[[@LINE-4]]:18: note: argument 'x' of 'nn.linear' is f32[2, 5]
# CHECK-NEXT: {{^}}y = nn.linear(p, x)
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NEXT: stdlib-calls.dlm:[[@LINE-7]]:15: note: element [0] of argument 'params' of 'nn.linear' is f32[3, 4] ('w' in 'nn.linear')
# CHECK-NEXT: {{^}}y = nn.linear(p, x)
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NEXT: nn.dlm:{{[0-9]+}}:12: note: inside 'nn.linear'
# CHECK-NEXT: {{^}}    return x @ w + b
# CHECK-NEXT: {{^ *\^~+$}}
# CHECK-NOT: defined here

# shape, nested: nn.mlp calls nn.linear; the second layer does not fit the first (the first
# layer's output is made inside nn.mlp: its note is the library's own)
mlp = (nn.init_linear(5, 16), nn.init_linear(8, 10))
h = nn.mlp(mlp, x)
# CHECK: stdlib-calls.dlm:[[@LINE-1]]:5: error: matmul: 16 columns on the left vs 8 rows on the right (f32[2, 16] @ f32[8, 10])
# CHECK-NEXT: {{^}}h = nn.mlp(mlp, x)
# CHECK-NEXT: {{^ *\^~+$}}
# CHECK-NEXT: stdlib-calls.dlm:[[@LINE-4]]:12: note: element [1][0] of argument 'params' of 'nn.mlp' is f32[8, 10] ('w' in 'nn.linear')
# CHECK-NEXT: {{^}}h = nn.mlp(mlp, x)
# CHECK-NEXT: {{^ *\^~+$}}
# CHECK-NEXT: nn.dlm:{{[0-9]+}}:12: note: inside 'nn.mlp'
# CHECK-NEXT: {{^}}    return linear(l2, relu(linear(l1, x)))
# CHECK-NEXT: {{^ *\^~+$}}
# CHECK-NEXT: nn.dlm:{{[0-9]+}}:12: note: inside 'nn.linear'
# CHECK-NEXT: {{^}}    return x @ w + b
# CHECK-NEXT: {{^ *\^~+$}}
# CHECK-NEXT: nn.dlm:{{[0-9]+}}:20: note: 'x' is f32[2, 16], defined here

# shape: the LSTM's state has the wrong width
cell = nn.init_lstm(5, 6)
hc = nn.lstm_cell(cell, x, zeros(2, 4), zeros(2, 6))
# CHECK: stdlib-calls.dlm:[[@LINE-1]]:6: error: matmul: 4 columns on the left vs 6 rows on the right (f32[2, 4] @ f32[6, 24])
# CHECK: stdlib-calls.dlm:[[@LINE-2]]:28: note: argument 'h' of 'nn.lstm_cell' is f32[2, 4]
# CHECK: stdlib-calls.dlm:[[@LINE-3]]:19: note: element [1] of argument 'params' of 'nn.lstm_cell' is f32[6, 24] ('wh' in 'nn.lstm_cell')
# CHECK: note: inside 'nn.lstm_cell'
# CHECK-NEXT: {{^}}    z = x @ wx + h @ wh + b

# an int argument, through two stdlib functions, to the builtin that rejects it
q = nn.init_linear(-3, 4)
# CHECK: stdlib-calls.dlm:[[@LINE-1]]:5: error: negative dimension -3 in 'randn'
# CHECK: stdlib-calls.dlm:[[@LINE-2]]:20: note: argument 'n_in' of 'nn.init_linear' is -3{{$}}
# CHECK: note: inside 'nn.init_linear'
# CHECK: note: inside 'nn.he_normal'
# CHECK-NEXT: {{^}}    return randn(n_in, n_out) * sqrt(2.0 / n_in)

# dtype: float labels where cross_entropy needs integer ones
l = metrics.cross_entropy_loss(ones(2, 10), ones(2))
# CHECK: stdlib-calls.dlm:[[@LINE-1]]:5: error: cross_entropy: labels must be integer [N], found f32[2]
# CHECK: stdlib-calls.dlm:[[@LINE-2]]:45: note: argument 'labels' of 'metrics.cross_entropy_loss' is f32[2]
# CHECK: note: inside 'metrics.cross_entropy_loss'

# structure: a tensor where a layer's (w, b) tuple belongs
z = nn.linear(ones(3, 4), x)
# CHECK: stdlib-calls.dlm:[[@LINE-1]]:5: error: cannot unpack f32[3, 4] into 2 names (only tuples can be unpacked)
# CHECK: stdlib-calls.dlm:[[@LINE-2]]:15: note: argument 'params' of 'nn.linear' is f32[3, 4]
# CHECK: note: inside 'nn.linear'
# CHECK-NEXT: {{^}}    w, b = params

# tuple arithmetic, nested (optim.adamw calls optim.adam): the gradient's bias has the wrong size
state = optim.adam_init(p)
p2 = optim.adamw(p, (ones(3, 4), ones(5)), state)
# CHECK: stdlib-calls.dlm:[[@LINE-1]]:6: error: cannot broadcast f32[4] with f32[5]
# CHECK: stdlib-calls.dlm:[[@LINE-2]]:44: note: element [0][1] of argument 'state' of 'optim.adamw' is f32[4]
# CHECK: stdlib-calls.dlm:[[@LINE-3]]:21: note: element [1] of argument 'grads' of 'optim.adamw' is f32[5]
# CHECK: note: inside 'optim.adamw'
# CHECK: note: inside 'optim.adam'

# arity and keywords: reported at the call, with the definition as a note
a1 = nn.linear(p)
# CHECK: stdlib-calls.dlm:[[@LINE-1]]:6: error: missing argument 'x' in call to 'nn.linear'
# CHECK: nn.dlm:{{[0-9]+}}:5: note: 'nn.linear' is defined here
a2 = nn.linear(p, x, x)
# CHECK: stdlib-calls.dlm:[[@LINE-1]]:6: error: 'nn.linear' takes 2 arguments, 3 given
a3 = nn.linear(p, inputs=x)
# CHECK: stdlib-calls.dlm:[[@LINE-1]]:19: error: 'nn.linear' has no parameter named 'inputs'{{$}}
# CHECK: stdlib-calls.dlm:[[@LINE-2]]:6: error: missing argument 'x' in call to 'nn.linear'
# CHECK-NOT: error:
# CHECK: 11 errors generated
