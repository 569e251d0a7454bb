# RUN: %dlmc --emit=ast %s | FileCheck %s
# Tuples (empty, one element, nested, parenthesised and bare) and tensor literals (nested
# lists); a parenthesised expression is not a tuple.
a = ()
b = (1,)
c = (1, (2, 3))
d = 1, 2
e = (x)
f = tensor([[1.0, 2.0], [3.0, 4.0]])
g = tensor([])

# CHECK:   Assign <4:1-4:7>
# CHECK-NEXT:     target: Name 'a' <4:1-4:2>
# CHECK-NEXT:     value: Tuple <4:5-4:7>
# CHECK-NEXT:   Assign <5:1-5:9>
# CHECK-NEXT:     target: Name 'b' <5:1-5:2>
# CHECK-NEXT:     value: Tuple <5:5-5:9>
# CHECK-NEXT:       IntLiteral 1 <5:6-5:7>
# CHECK-NEXT:   Assign <6:1-6:16>
# CHECK-NEXT:     target: Name 'c' <6:1-6:2>
# CHECK-NEXT:     value: Tuple <6:5-6:16>
# CHECK-NEXT:       IntLiteral 1 <6:6-6:7>
# CHECK-NEXT:       Tuple <6:9-6:15>
# CHECK-NEXT:         IntLiteral 2 <6:10-6:11>
# CHECK-NEXT:         IntLiteral 3 <6:13-6:14>
# CHECK-NEXT:   Assign <7:1-7:9>
# CHECK-NEXT:     target: Name 'd' <7:1-7:2>
# CHECK-NEXT:     value: Tuple <7:5-7:9>
# CHECK-NEXT:       IntLiteral 1 <7:5-7:6>
# CHECK-NEXT:       IntLiteral 2 <7:8-7:9>
# CHECK-NEXT:   Assign <8:1-8:8>
# CHECK-NEXT:     target: Name 'e' <8:1-8:2>
# CHECK-NEXT:     value: Name 'x' <8:6-8:7>
# CHECK-NEXT:   Assign <9:1-9:37>
# CHECK-NEXT:     target: Name 'f' <9:1-9:2>
# CHECK-NEXT:     value: Call <9:5-9:37>
# CHECK-NEXT:       callee: Name 'tensor' <9:5-9:11>
# CHECK-NEXT:       List <9:12-9:36>
# CHECK-NEXT:         List <9:13-9:23>
# CHECK-NEXT:           FloatLiteral 1.0 <9:14-9:17>
# CHECK-NEXT:           FloatLiteral 2.0 <9:19-9:22>
# CHECK-NEXT:         List <9:25-9:35>
# CHECK-NEXT:           FloatLiteral 3.0 <9:26-9:29>
# CHECK-NEXT:           FloatLiteral 4.0 <9:31-9:34>
# CHECK-NEXT:   Assign <10:1-10:15>
# CHECK-NEXT:     target: Name 'g' <10:1-10:2>
# CHECK-NEXT:     value: Call <10:5-10:15>
# CHECK-NEXT:       callee: Name 'tensor' <10:5-10:11>
# CHECK-NEXT:       List <10:12-10:14>
