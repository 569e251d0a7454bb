# RUN: %dlmc --emit=ast %s | FileCheck %s
# The four augmented assignments; the op is printed as written.
x += 1
x -= y
x *= 2.0
x /= n

# CHECK:   AugAssign '+=' <3:1-3:7>
# CHECK-NEXT:     target: Name 'x' <3:1-3:2>
# CHECK-NEXT:     value: IntLiteral 1 <3:6-3:7>
# CHECK-NEXT:   AugAssign '-=' <4:1-4:7>
# CHECK-NEXT:     target: Name 'x' <4:1-4:2>
# CHECK-NEXT:     value: Name 'y' <4:6-4:7>
# CHECK-NEXT:   AugAssign '*=' <5:1-5:9>
# CHECK-NEXT:     target: Name 'x' <5:1-5:2>
# CHECK-NEXT:     value: FloatLiteral 2.0 <5:6-5:9>
# CHECK-NEXT:   AugAssign '/=' <6:1-6:7>
# CHECK-NEXT:     target: Name 'x' <6:1-6:2>
# CHECK-NEXT:     value: Name 'n' <6:6-6:7>
