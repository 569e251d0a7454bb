# RUN: %dlmc --emit=ast %s | FileCheck %s
# Indexing and slicing: a constant, a negative index, a full slice, bounded and stepped
# slices with parts left out, several items, chained subscripts.
a = t[0]
b = x[-1]
c = x[:, 0:3]
d = x[::2]
e = x[1:]
f = x[:n, i:j:k]
g = x[0][1]

# CHECK:   Assign <4:1-4:9>
# CHECK-NEXT:     target: Name 'a' <4:1-4:2>
# CHECK-NEXT:     value: Subscript <4:5-4:9>
# CHECK-NEXT:       Name 't' <4:5-4:6>
# CHECK-NEXT:       IntLiteral 0 <4:7-4:8>
# CHECK-NEXT:   Assign <5:1-5:10>
# CHECK-NEXT:     target: Name 'b' <5:1-5:2>
# CHECK-NEXT:     value: Subscript <5:5-5:10>
# CHECK-NEXT:       Name 'x' <5:5-5:6>
# CHECK-NEXT:       Unary '-' <5:7-5:9>
# CHECK-NEXT:         IntLiteral 1 <5:8-5:9>
# CHECK-NEXT:   Assign <6:1-6:14>
# CHECK-NEXT:     target: Name 'c' <6:1-6:2>
# CHECK-NEXT:     value: Subscript <6:5-6:14>
# CHECK-NEXT:       Name 'x' <6:5-6:6>
# CHECK-NEXT:       Slice <6:7-6:8>
# CHECK-NEXT:       Slice <6:10-6:13>
# CHECK-NEXT:         lower: IntLiteral 0 <6:10-6:11>
# CHECK-NEXT:         upper: IntLiteral 3 <6:12-6:13>
# CHECK-NEXT:   Assign <7:1-7:11>
# CHECK-NEXT:     target: Name 'd' <7:1-7:2>
# CHECK-NEXT:     value: Subscript <7:5-7:11>
# CHECK-NEXT:       Name 'x' <7:5-7:6>
# CHECK-NEXT:       Slice <7:7-7:10>
# CHECK-NEXT:         step: IntLiteral 2 <7:9-7:10>
# CHECK-NEXT:   Assign <8:1-8:10>
# CHECK-NEXT:     target: Name 'e' <8:1-8:2>
# CHECK-NEXT:     value: Subscript <8:5-8:10>
# CHECK-NEXT:       Name 'x' <8:5-8:6>
# CHECK-NEXT:       Slice <8:7-8:9>
# CHECK-NEXT:         lower: IntLiteral 1 <8:7-8:8>
# CHECK-NEXT:   Assign <9:1-9:17>
# CHECK-NEXT:     target: Name 'f' <9:1-9:2>
# CHECK-NEXT:     value: Subscript <9:5-9:17>
# CHECK-NEXT:       Name 'x' <9:5-9:6>
# CHECK-NEXT:       Slice <9:7-9:9>
# CHECK-NEXT:         upper: Name 'n' <9:8-9:9>
# CHECK-NEXT:       Slice <9:11-9:16>
# CHECK-NEXT:         lower: Name 'i' <9:11-9:12>
# CHECK-NEXT:         upper: Name 'j' <9:13-9:14>
# CHECK-NEXT:         step: Name 'k' <9:15-9:16>
# CHECK-NEXT:   Assign <10:1-10:12>
# CHECK-NEXT:     target: Name 'g' <10:1-10:2>
# CHECK-NEXT:     value: Subscript <10:5-10:12>
# CHECK-NEXT:       Subscript <10:5-10:9>
# CHECK-NEXT:         Name 'x' <10:5-10:6>
# CHECK-NEXT:         IntLiteral 0 <10:7-10:8>
# CHECK-NEXT:       IntLiteral 1 <10:10-10:11>
