# RUN: %dlmc --emit=ast %s | FileCheck %s
# ** is right-associative and binds tighter than a unary minus on its left but not on its
# right: -a ** b is -(a ** b), a ** -b ** c is a ** (-(b ** c)).
a = 2 ** 3 ** 2
b = -x ** 2
c = a ** -b ** c
d = --x

# CHECK:   Assign <4:1-4:16>
# CHECK-NEXT:     target: Name 'a' <4:1-4:2>
# CHECK-NEXT:     value: Binary '**' <4:5-4:16>
# CHECK-NEXT:       IntLiteral 2 <4:5-4:6>
# CHECK-NEXT:       Binary '**' <4:10-4:16>
# CHECK-NEXT:         IntLiteral 3 <4:10-4:11>
# CHECK-NEXT:         IntLiteral 2 <4:15-4:16>
# CHECK-NEXT:   Assign <5:1-5:12>
# CHECK-NEXT:     target: Name 'b' <5:1-5:2>
# CHECK-NEXT:     value: Unary '-' <5:5-5:12>
# CHECK-NEXT:       Binary '**' <5:6-5:12>
# CHECK-NEXT:         Name 'x' <5:6-5:7>
# CHECK-NEXT:         IntLiteral 2 <5:11-5:12>
# CHECK-NEXT:   Assign <6:1-6:17>
# CHECK-NEXT:     target: Name 'c' <6:1-6:2>
# CHECK-NEXT:     value: Binary '**' <6:5-6:17>
# CHECK-NEXT:       Name 'a' <6:5-6:6>
# CHECK-NEXT:       Unary '-' <6:10-6:17>
# CHECK-NEXT:         Binary '**' <6:11-6:17>
# CHECK-NEXT:           Name 'b' <6:11-6:12>
# CHECK-NEXT:           Name 'c' <6:16-6:17>
# CHECK-NEXT:   Assign <7:1-7:8>
# CHECK-NEXT:     target: Name 'd' <7:1-7:2>
# CHECK-NEXT:     value: Unary '-' <7:5-7:8>
# CHECK-NEXT:       Unary '-' <7:6-7:8>
# CHECK-NEXT:         Name 'x' <7:7-7:8>
