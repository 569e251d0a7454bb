# RUN: %dlmc --emit=ast %s | FileCheck %s
# Nested blocks close with one DEDENT each, including several at once and at the end of the
# file.
def f(x):
    for i in range(3):
        while x:
            if i:
                x = x - 1
    return x
if y:
    if z:
        pass
w = 1

# CHECK:   FunctionDef 'f' <4:1-9:13>
# CHECK-NEXT:     Param 'x' <4:7-4:8>
# CHECK-NEXT:     body:
# CHECK-NEXT:       For <5:5-8:26>
# CHECK-NEXT:         target: Name 'i' <5:9-5:10>
# CHECK-NEXT:         iterable: Call <5:14-5:22>
# CHECK-NEXT:           callee: Name 'range' <5:14-5:19>
# CHECK-NEXT:           IntLiteral 3 <5:20-5:21>
# CHECK-NEXT:         body:
# CHECK-NEXT:           While <6:9-8:26>
# CHECK-NEXT:             cond: Name 'x' <6:15-6:16>
# CHECK-NEXT:             body:
# CHECK-NEXT:               If <7:13-8:26>
# CHECK-NEXT:                 cond: Name 'i' <7:16-7:17>
# CHECK-NEXT:                 then:
# CHECK-NEXT:                   Assign <8:17-8:26>
# CHECK-NEXT:                     target: Name 'x' <8:17-8:18>
# CHECK-NEXT:                     value: Binary '-' <8:21-8:26>
# CHECK-NEXT:                       Name 'x' <8:21-8:22>
# CHECK-NEXT:                       IntLiteral 1 <8:25-8:26>
# CHECK-NEXT:       Return <9:5-9:13>
# CHECK-NEXT:         Name 'x' <9:12-9:13>
# CHECK-NEXT:   If <10:1-12:13>
# CHECK-NEXT:     cond: Name 'y' <10:4-10:5>
# CHECK-NEXT:     then:
# CHECK-NEXT:       If <11:5-12:13>
# CHECK-NEXT:         cond: Name 'z' <11:8-11:9>
# CHECK-NEXT:         then:
# CHECK-NEXT:           Pass <12:9-12:13>
# CHECK-NEXT:   Assign <13:1-13:6>
# CHECK-NEXT:     target: Name 'w' <13:1-13:2>
# CHECK-NEXT:     value: IntLiteral 1 <13:5-13:6>
