# RUN: %dlmc --emit=ast %s | FileCheck %s
# Assignment: a name, tuple unpacking (with and without parentheses, nested), and an
# annotated assignment.
x = 1
a, b = t
(c, d) = t
e, (f, g) = t
h: Tensor[f32, B] = zeros(3)

# CHECK:   Assign <4:1-4:6>
# CHECK-NEXT:     target: Name 'x' <4:1-4:2>
# CHECK-NEXT:     value: IntLiteral 1 <4:5-4:6>
# CHECK-NEXT:   Assign <5:1-5:9>
# CHECK-NEXT:     target: Tuple <5:1-5:5>
# CHECK-NEXT:       Name 'a' <5:1-5:2>
# CHECK-NEXT:       Name 'b' <5:4-5:5>
# CHECK-NEXT:     value: Name 't' <5:8-5:9>
# CHECK-NEXT:   Assign <6:1-6:11>
# CHECK-NEXT:     target: Tuple <6:1-6:7>
# CHECK-NEXT:       Name 'c' <6:2-6:3>
# CHECK-NEXT:       Name 'd' <6:5-6:6>
# CHECK-NEXT:     value: Name 't' <6:10-6:11>
# CHECK-NEXT:   Assign <7:1-7:14>
# CHECK-NEXT:     target: Tuple <7:1-7:10>
# CHECK-NEXT:       Name 'e' <7:1-7:2>
# CHECK-NEXT:       Tuple <7:4-7:10>
# CHECK-NEXT:         Name 'f' <7:5-7:6>
# CHECK-NEXT:         Name 'g' <7:8-7:9>
# CHECK-NEXT:     value: Name 't' <7:13-7:14>
# CHECK-NEXT:   Assign <8:1-8:29>
# CHECK-NEXT:     target: Name 'h' <8:1-8:2>
# CHECK-NEXT:     type: TensorType f32 [B] <8:4-8:18>
# CHECK-NEXT:     value: Call <8:21-8:29>
# CHECK-NEXT:       callee: Name 'zeros' <8:21-8:26>
# CHECK-NEXT:       IntLiteral 3 <8:27-8:28>
