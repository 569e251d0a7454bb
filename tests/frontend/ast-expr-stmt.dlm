# RUN: %dlmc --emit=ast %s | FileCheck %s
# Expression statements: a call for its effect, and a bare name.
print(x)
x

# CHECK:   ExprStmt <3:1-3:9>
# CHECK-NEXT:     Call <3:1-3:9>
# CHECK-NEXT:       callee: Name 'print' <3:1-3:6>
# CHECK-NEXT:       Name 'x' <3:7-3:8>
# CHECK-NEXT:   ExprStmt <4:1-4:2>
# CHECK-NEXT:     Name 'x' <4:1-4:2>
