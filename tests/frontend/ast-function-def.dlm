# RUN: %dlmc --emit=ast %s | FileCheck %s
# A function definition: parameters with and without annotations and defaults, a return
# annotation, and a body; the function's range runs from 'def' to the end of its last
# statement.
def layer(x: Tensor[B, 784], w, lr: float = 0.1, steps=3) -> Tensor[B, 10]:
    y = x @ w
    return y

def noargs():
    pass

# CHECK:   FunctionDef 'layer' <5:1-7:13>
# CHECK-NEXT:     Param 'x' <5:11-5:28>
# CHECK-NEXT:       type: TensorType [B, 784] <5:14-5:28>
# CHECK-NEXT:     Param 'w' <5:30-5:31>
# CHECK-NEXT:     Param 'lr' <5:33-5:48>
# CHECK-NEXT:       type: ScalarType float <5:37-5:42>
# CHECK-NEXT:       default: FloatLiteral 0.1 <5:45-5:48>
# CHECK-NEXT:     Param 'steps' <5:50-5:57>
# CHECK-NEXT:       default: IntLiteral 3 <5:56-5:57>
# CHECK-NEXT:     returns: TensorType [B, 10] <5:62-5:75>
# CHECK-NEXT:     body:
# CHECK-NEXT:       Assign <6:5-6:14>
# CHECK-NEXT:         target: Name 'y' <6:5-6:6>
# CHECK-NEXT:         value: Binary '@' <6:9-6:14>
# CHECK-NEXT:           Name 'x' <6:9-6:10>
# CHECK-NEXT:           Name 'w' <6:13-6:14>
# CHECK-NEXT:       Return <7:5-7:13>
# CHECK-NEXT:         Name 'y' <7:12-7:13>
# CHECK-NEXT:   FunctionDef 'noargs' <9:1-10:9>
# CHECK-NEXT:     body:
# CHECK-NEXT:       Pass <10:5-10:9>
