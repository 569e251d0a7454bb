# RUN: %dlmc --emit=ast %s | FileCheck %s
# assert with and without a message.
assert x > 0
assert n == 3, "n must be 3"

# CHECK:   Assert <3:1-3:13>
# CHECK-NEXT:     cond: Binary '>' <3:8-3:13>
# CHECK-NEXT:       Name 'x' <3:8-3:9>
# CHECK-NEXT:       IntLiteral 0 <3:12-3:13>
# CHECK-NEXT:   Assert <4:1-4:29>
# CHECK-NEXT:     cond: Binary '==' <4:8-4:14>
# CHECK-NEXT:       Name 'n' <4:8-4:9>
# CHECK-NEXT:       IntLiteral 3 <4:13-4:14>
# CHECK-NEXT:     message: StringLiteral "n must be 3" <4:16-4:29>
