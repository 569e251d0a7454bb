# RUN: %dlmc --emit=ast %s | FileCheck %s
# Implicit line joining inside brackets (any indentation, blank and comment lines inside)
# and explicit joining with a backslash.
x = f(a,
          b,

      # a comment inside the call
  c)
y = 1 + \
    2
z = [1,
     2]

# CHECK:   Assign <4:1-8:5>
# CHECK-NEXT:     target: Name 'x' <4:1-4:2>
# CHECK-NEXT:     value: Call <4:5-8:5>
# CHECK-NEXT:       callee: Name 'f' <4:5-4:6>
# CHECK-NEXT:       Name 'a' <4:7-4:8>
# CHECK-NEXT:       Name 'b' <5:11-5:12>
# CHECK-NEXT:       Name 'c' <8:3-8:4>
# CHECK-NEXT:   Assign <9:1-10:6>
# CHECK-NEXT:     target: Name 'y' <9:1-9:2>
# CHECK-NEXT:     value: Binary '+' <9:5-10:6>
# CHECK-NEXT:       IntLiteral 1 <9:5-9:6>
# CHECK-NEXT:       IntLiteral 2 <10:5-10:6>
# CHECK-NEXT:   Assign <11:1-12:8>
# CHECK-NEXT:     target: Name 'z' <11:1-11:2>
# CHECK-NEXT:     value: List <11:5-12:8>
# CHECK-NEXT:       IntLiteral 1 <11:6-11:7>
# CHECK-NEXT:       IntLiteral 2 <12:6-12:7>
