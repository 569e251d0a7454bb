# RUN: %dlmc --emit=ast %s | FileCheck %s
# A block can be a single statement on the header's line.
if x: y = 1
else: y = 2
while c: c = step(c)
for i in range(3): print(i)
def f(x): return x

# CHECK:   If <3:1-4:12>
# CHECK-NEXT:     cond: Name 'x' <3:4-3:5>
# CHECK-NEXT:     then:
# CHECK-NEXT:       Assign <3:7-3:12>
# CHECK-NEXT:         target: Name 'y' <3:7-3:8>
# CHECK-NEXT:         value: IntLiteral 1 <3:11-3:12>
# CHECK-NEXT:     else:
# CHECK-NEXT:       Assign <4:7-4:12>
# CHECK-NEXT:         target: Name 'y' <4:7-4:8>
# CHECK-NEXT:         value: IntLiteral 2 <4:11-4:12>
# CHECK-NEXT:   While <5:1-5:21>
# CHECK-NEXT:     cond: Name 'c' <5:7-5:8>
# CHECK-NEXT:     body:
# CHECK-NEXT:       Assign <5:10-5:21>
# CHECK-NEXT:         target: Name 'c' <5:10-5:11>
# CHECK-NEXT:         value: Call <5:14-5:21>
# CHECK-NEXT:           callee: Name 'step' <5:14-5:18>
# CHECK-NEXT:           Name 'c' <5:19-5:20>
# CHECK-NEXT:   For <6:1-6:28>
# CHECK-NEXT:     target: Name 'i' <6:5-6:6>
# CHECK-NEXT:     iterable: Call <6:10-6:18>
# CHECK-NEXT:       callee: Name 'range' <6:10-6:15>
# CHECK-NEXT:       IntLiteral 3 <6:16-6:17>
# CHECK-NEXT:     body:
# CHECK-NEXT:       ExprStmt <6:20-6:28>
# CHECK-NEXT:         Call <6:20-6:28>
# CHECK-NEXT:           callee: Name 'print' <6:20-6:25>
# CHECK-NEXT:           Name 'i' <6:26-6:27>
# CHECK-NEXT:   FunctionDef 'f' <7:1-7:19>
# CHECK-NEXT:     Param 'x' <7:7-7:8>
# CHECK-NEXT:     body:
# CHECK-NEXT:       Return <7:11-7:19>
# CHECK-NEXT:         Name 'x' <7:18-7:19>
