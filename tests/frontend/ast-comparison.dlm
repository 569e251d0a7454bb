# RUN: %dlmc --emit=ast %s | FileCheck %s
# Every comparison operator.
a = x < y
b = x <= y
c = x > y
d = x >= y
e = x == y
f = x != y

# CHECK:   Assign <3:1-3:10>
# CHECK-NEXT:     target: Name 'a' <3:1-3:2>
# CHECK-NEXT:     value: Binary '<' <3:5-3:10>
# CHECK-NEXT:       Name 'x' <3:5-3:6>
# CHECK-NEXT:       Name 'y' <3:9-3:10>
# CHECK-NEXT:   Assign <4:1-4:11>
# CHECK-NEXT:     target: Name 'b' <4:1-4:2>
# CHECK-NEXT:     value: Binary '<=' <4:5-4:11>
# CHECK-NEXT:       Name 'x' <4:5-4:6>
# CHECK-NEXT:       Name 'y' <4:10-4:11>
# CHECK-NEXT:   Assign <5:1-5:10>
# CHECK-NEXT:     target: Name 'c' <5:1-5:2>
# CHECK-NEXT:     value: Binary '>' <5:5-5:10>
# CHECK-NEXT:       Name 'x' <5:5-5:6>
# CHECK-NEXT:       Name 'y' <5:9-5:10>
# CHECK-NEXT:   Assign <6:1-6:11>
# CHECK-NEXT:     target: Name 'd' <6:1-6:2>
# CHECK-NEXT:     value: Binary '>=' <6:5-6:11>
# CHECK-NEXT:       Name 'x' <6:5-6:6>
# CHECK-NEXT:       Name 'y' <6:10-6:11>
# CHECK-NEXT:   Assign <7:1-7:11>
# CHECK-NEXT:     target: Name 'e' <7:1-7:2>
# CHECK-NEXT:     value: Binary '==' <7:5-7:11>
# CHECK-NEXT:       Name 'x' <7:5-7:6>
# CHECK-NEXT:       Name 'y' <7:10-7:11>
# CHECK-NEXT:   Assign <8:1-8:11>
# CHECK-NEXT:     target: Name 'f' <8:1-8:2>
# CHECK-NEXT:     value: Binary '!=' <8:5-8:11>
# CHECK-NEXT:       Name 'x' <8:5-8:6>
# CHECK-NEXT:       Name 'y' <8:10-8:11>
