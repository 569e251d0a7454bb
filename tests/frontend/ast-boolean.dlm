# RUN: %dlmc --emit=ast %s | FileCheck %s
# and binds tighter than or, not tighter than and; chains fold to the left.
a = x or y and z
b = not x and not not y
c = a or b or c

# CHECK:   Assign <3:1-3:17>
# CHECK-NEXT:     target: Name 'a' <3:1-3:2>
# CHECK-NEXT:     value: BoolOp or <3:5-3:17>
# CHECK-NEXT:       Name 'x' <3:5-3:6>
# CHECK-NEXT:       BoolOp and <3:10-3:17>
# CHECK-NEXT:         Name 'y' <3:10-3:11>
# CHECK-NEXT:         Name 'z' <3:16-3:17>
# CHECK-NEXT:   Assign <4:1-4:24>
# CHECK-NEXT:     target: Name 'b' <4:1-4:2>
# CHECK-NEXT:     value: BoolOp and <4:5-4:24>
# CHECK-NEXT:       Unary not <4:5-4:10>
# CHECK-NEXT:         Name 'x' <4:9-4:10>
# CHECK-NEXT:       Unary not <4:15-4:24>
# CHECK-NEXT:         Unary not <4:19-4:24>
# CHECK-NEXT:           Name 'y' <4:23-4:24>
# CHECK-NEXT:   Assign <5:1-5:16>
# CHECK-NEXT:     target: Name 'c' <5:1-5:2>
# CHECK-NEXT:     value: BoolOp or <5:5-5:16>
# CHECK-NEXT:       BoolOp or <5:5-5:11>
# CHECK-NEXT:         Name 'a' <5:5-5:6>
# CHECK-NEXT:         Name 'b' <5:10-5:11>
# CHECK-NEXT:       Name 'c' <5:15-5:16>
