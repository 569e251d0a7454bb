# RUN: not %dlmc --emit=ssa %s 2>&1 | FileCheck %s
# An error inside a called module whose clashing operands are one and the same argument names
# that argument once, not once per operand (both sides of 'w @ w' trace back to 'w').
import Inputs/square

y = square.square(ones(2, 3))
# CHECK: same-argument-twice.dlm:[[@LINE-1]]:5: error: matmul: 3 columns on the left vs 2 rows on the right (f32[2, 3] @ f32[2, 3])
# CHECK-NEXT: {{^}}y = square.square(ones(2, 3))
# CHECK-NEXT: {{^ *\^~+$}}
# CHECK-NEXT: same-argument-twice.dlm:[[@LINE-4]]:19: note: argument 'w' of 'square.square' is f32[2, 3]
# CHECK-NEXT: {{^}}y = square.square(ones(2, 3))
# CHECK-NEXT: {{^ *\^~+$}}
# CHECK-NEXT: square.dlm:3:12: note: inside 'square.square'
# CHECK-NEXT: {{^}}    return w @ w
# CHECK-NEXT: {{^ *\^~+$}}
# CHECK-NEXT: 1 error generated
