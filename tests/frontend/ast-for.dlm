# RUN: %dlmc --emit=ast %s | FileCheck %s
# for over range with one, two and three arguments, and over a tuple (unrolled by sema).
for i in range(10):
    pass
for i in range(1, 10):
    pass
for i in range(0, 10, 2):
    pass
for w in (w1, w2, w3):
    print(w)

# CHECK:   For <3:1-4:9>
# CHECK-NEXT:     target: Name 'i' <3:5-3:6>
# CHECK-NEXT:     iterable: Call <3:10-3:19>
# CHECK-NEXT:       callee: Name 'range' <3:10-3:15>
# CHECK-NEXT:       IntLiteral 10 <3:16-3:18>
# CHECK-NEXT:     body:
# CHECK-NEXT:       Pass <4:5-4:9>
# CHECK-NEXT:   For <5:1-6:9>
# CHECK-NEXT:     target: Name 'i' <5:5-5:6>
# CHECK-NEXT:     iterable: Call <5:10-5:22>
# CHECK-NEXT:       callee: Name 'range' <5:10-5:15>
# CHECK-NEXT:       IntLiteral 1 <5:16-5:17>
# CHECK-NEXT:       IntLiteral 10 <5:19-5:21>
# CHECK-NEXT:     body:
# CHECK-NEXT:       Pass <6:5-6:9>
# CHECK-NEXT:   For <7:1-8:9>
# CHECK-NEXT:     target: Name 'i' <7:5-7:6>
# CHECK-NEXT:     iterable: Call <7:10-7:25>
# CHECK-NEXT:       callee: Name 'range' <7:10-7:15>
# CHECK-NEXT:       IntLiteral 0 <7:16-7:17>
# CHECK-NEXT:       IntLiteral 10 <7:19-7:21>
# CHECK-NEXT:       IntLiteral 2 <7:23-7:24>
# CHECK-NEXT:     body:
# CHECK-NEXT:       Pass <8:5-8:9>
# CHECK-NEXT:   For <9:1-10:13>
# CHECK-NEXT:     target: Name 'w' <9:5-9:6>
# CHECK-NEXT:     iterable: Tuple <9:10-9:22>
# CHECK-NEXT:       Name 'w1' <9:11-9:13>
# CHECK-NEXT:       Name 'w2' <9:15-9:17>
# CHECK-NEXT:       Name 'w3' <9:19-9:21>
# CHECK-NEXT:     body:
# CHECK-NEXT:       ExprStmt <10:5-10:13>
# CHECK-NEXT:         Call <10:5-10:13>
# CHECK-NEXT:           callee: Name 'print' <10:5-10:10>
# CHECK-NEXT:           Name 'w' <10:11-10:12>
