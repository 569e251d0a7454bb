# RUN: %dlmc --emit=ast %s | FileCheck %s
# break, continue and pass inside a loop.
while True:
    if a:
        break
    if b:
        continue
    pass

# CHECK:   While <3:1-8:9>
# CHECK-NEXT:     cond: BoolLiteral True <3:7-3:11>
# CHECK-NEXT:     body:
# CHECK-NEXT:       If <4:5-5:14>
# CHECK-NEXT:         cond: Name 'a' <4:8-4:9>
# CHECK-NEXT:         then:
# CHECK-NEXT:           Break <5:9-5:14>
# CHECK-NEXT:       If <6:5-7:17>
# CHECK-NEXT:         cond: Name 'b' <6:8-6:9>
# CHECK-NEXT:         then:
# CHECK-NEXT:           Continue <7:9-7:17>
# CHECK-NEXT:       Pass <8:5-8:9>
