# RUN: %dlmc --emit=ast %s | FileCheck %s
# A while loop whose condition depends on a tensor value (data-dependent control flow).
while norm(x) > 1.0:
    x = x * 0.5

# CHECK:   While <3:1-4:16>
# CHECK-NEXT:     cond: Binary '>' <3:7-3:20>
# CHECK-NEXT:       Call <3:7-3:14>
# CHECK-NEXT:         callee: Name 'norm' <3:7-3:11>
# CHECK-NEXT:         Name 'x' <3:12-3:13>
# CHECK-NEXT:       FloatLiteral 1.0 <3:17-3:20>
# CHECK-NEXT:     body:
# CHECK-NEXT:       Assign <4:5-4:16>
# CHECK-NEXT:         target: Name 'x' <4:5-4:6>
# CHECK-NEXT:         value: Binary '*' <4:9-4:16>
# CHECK-NEXT:           Name 'x' <4:9-4:10>
# CHECK-NEXT:           FloatLiteral 0.5 <4:13-4:16>
