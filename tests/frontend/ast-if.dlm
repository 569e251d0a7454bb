# RUN: %dlmc --emit=ast %s | FileCheck %s
# if / elif / else: each elif is an If marked `elif`, nested as the else-body of the one
# before; a missing else leaves no else-body.
if x < 0:
    y = 0
elif x < 10:
    y = 1
elif x < 20:
    y = 2
else:
    y = 3
if done:
    pass

# CHECK:   If <4:1-11:10>
# CHECK-NEXT:     cond: Binary '<' <4:4-4:9>
# CHECK-NEXT:       Name 'x' <4:4-4:5>
# CHECK-NEXT:       IntLiteral 0 <4:8-4:9>
# CHECK-NEXT:     then:
# CHECK-NEXT:       Assign <5:5-5:10>
# CHECK-NEXT:         target: Name 'y' <5:5-5:6>
# CHECK-NEXT:         value: IntLiteral 0 <5:9-5:10>
# CHECK-NEXT:     else:
# CHECK-NEXT:       If elif <6:1-11:10>
# CHECK-NEXT:         cond: Binary '<' <6:6-6:12>
# CHECK-NEXT:           Name 'x' <6:6-6:7>
# CHECK-NEXT:           IntLiteral 10 <6:10-6:12>
# CHECK-NEXT:         then:
# CHECK-NEXT:           Assign <7:5-7:10>
# CHECK-NEXT:             target: Name 'y' <7:5-7:6>
# CHECK-NEXT:             value: IntLiteral 1 <7:9-7:10>
# CHECK-NEXT:         else:
# CHECK-NEXT:           If elif <8:1-11:10>
# CHECK-NEXT:             cond: Binary '<' <8:6-8:12>
# CHECK-NEXT:               Name 'x' <8:6-8:7>
# CHECK-NEXT:               IntLiteral 20 <8:10-8:12>
# CHECK-NEXT:             then:
# CHECK-NEXT:               Assign <9:5-9:10>
# CHECK-NEXT:                 target: Name 'y' <9:5-9:6>
# CHECK-NEXT:                 value: IntLiteral 2 <9:9-9:10>
# CHECK-NEXT:             else:
# CHECK-NEXT:               Assign <11:5-11:10>
# CHECK-NEXT:                 target: Name 'y' <11:5-11:6>
# CHECK-NEXT:                 value: IntLiteral 3 <11:9-11:10>
# CHECK-NEXT:   If <12:1-13:9>
# CHECK-NEXT:     cond: Name 'done' <12:4-12:8>
# CHECK-NEXT:     then:
# CHECK-NEXT:       Pass <13:5-13:9>
