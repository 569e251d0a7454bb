# RUN: not %python %src/scripts/dlm-diff.py %bin %s > %t.out 2> %t.err
# RUN: FileCheck %s < %t.err
# RUN: FileCheck %s --check-prefix=OUT < %t.out
# RUN: not %dlm run --engine=graph %s 2>&1 | FileCheck %s
# RUN: %dlmc %s -o %t.exe
# RUN: %python %src/tests/codegen/Inputs/exit-status.py 1 %t.exe 2>&1 | FileCheck %s
# A label out of range in the third step of a training loop, found by cross_entropy inside
# metrics.cross_entropy_loss inside the user's loss function, differentiated by value_and_grad:
# the error is at the user's metrics call, then inside the library, then where
# value_and_grad(loss_fn) was called. Earlier steps' prints have happened.
import metrics
import nn

def loss_fn(params, x, y):
    return metrics.cross_entropy_loss(nn.linear(params, x), y)

params = nn.init_linear(4, 3)
x = ones(2, 4)
for step in range(3):
    labels = tensor([0, 1]) * (step + 1)
    loss, g = value_and_grad(loss_fn)(params, x, labels)
    print("step", step, loss > 0.0)

# CHECK: runtime_error_metrics_chain.dlm:15:12: error: label 3 at row 1 is out of range for 3 classes
# CHECK-NEXT: {{^}}    return metrics.cross_entropy_loss(nn.linear(params, x), y)
# CHECK-NEXT: {{^           \^}}
# CHECK-NEXT: metrics.dlm:8:12: note: inside 'metrics.cross_entropy_loss'
# CHECK-NEXT: {{^}}    return cross_entropy(logits, labels)
# CHECK-NEXT: {{^           \^}}
# CHECK-NEXT: runtime_error_metrics_chain.dlm:21:15: note: 'value_and_grad(loss_fn)' called here
# CHECK-NEXT: {{^}}    loss, g = value_and_grad(loss_fn)(params, x, labels)
# CHECK-NEXT: {{^              \^}}
# CHECK-NOT: note:
# OUT: step 0 tensor(True, dtype=bool)
# OUT: step 1 tensor(True, dtype=bool)
# OUT-NOT: step 2
