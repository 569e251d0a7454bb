# RUN: %dlmc --emit=ast %s | FileCheck %s
# Binary operator precedence and associativity: * / // % @ bind tighter than + -, which bind
# tighter than comparisons; chains fold to the left.
a = 1 + 2 * 3
b = 1 - 2 - 3
c = a @ b + c / d // e % f
d = a + b < c * d

# CHECK:   Assign <4:1-4:14>
# CHECK-NEXT:     target: Name 'a' <4:1-4:2>
# CHECK-NEXT:     value: Binary '+' <4:5-4:14>
# CHECK-NEXT:       IntLiteral 1 <4:5-4:6>
# CHECK-NEXT:       Binary '*' <4:9-4:14>
# CHECK-NEXT:         IntLiteral 2 <4:9-4:10>
# CHECK-NEXT:         IntLiteral 3 <4:13-4:14>
# CHECK-NEXT:   Assign <5:1-5:14>
# CHECK-NEXT:     target: Name 'b' <5:1-5:2>
# CHECK-NEXT:     value: Binary '-' <5:5-5:14>
# CHECK-NEXT:       Binary '-' <5:5-5:10>
# CHECK-NEXT:         IntLiteral 1 <5:5-5:6>
# CHECK-NEXT:         IntLiteral 2 <5:9-5:10>
# CHECK-NEXT:       IntLiteral 3 <5:13-5:14>
# CHECK-NEXT:   Assign <6:1-6:27>
# CHECK-NEXT:     target: Name 'c' <6:1-6:2>
# CHECK-NEXT:     value: Binary '+' <6:5-6:27>
# CHECK-NEXT:       Binary '@' <6:5-6:10>
# CHECK-NEXT:         Name 'a' <6:5-6:6>
# CHECK-NEXT:         Name 'b' <6:9-6:10>
# CHECK-NEXT:       Binary '%' <6:13-6:27>
# CHECK-NEXT:         Binary '//' <6:13-6:23>
# CHECK-NEXT:           Binary '/' <6:13-6:18>
# CHECK-NEXT:             Name 'c' <6:13-6:14>
# CHECK-NEXT:             Name 'd' <6:17-6:18>
# CHECK-NEXT:           Name 'e' <6:22-6:23>
# CHECK-NEXT:         Name 'f' <6:26-6:27>
# CHECK-NEXT:   Assign <7:1-7:18>
# CHECK-NEXT:     target: Name 'd' <7:1-7:2>
# CHECK-NEXT:     value: Binary '<' <7:5-7:18>
# CHECK-NEXT:       Binary '+' <7:5-7:10>
# CHECK-NEXT:         Name 'a' <7:5-7:6>
# CHECK-NEXT:         Name 'b' <7:9-7:10>
# CHECK-NEXT:       Binary '*' <7:13-7:18>
# CHECK-NEXT:         Name 'c' <7:13-7:14>
# CHECK-NEXT:         Name 'd' <7:17-7:18>
