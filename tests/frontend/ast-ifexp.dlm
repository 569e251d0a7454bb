# RUN: %dlmc --emit=ast %s | FileCheck %s
# a if c else b, right-associative: the else-branch of the first holds the second.
x = a if c else b
y = a if c else b if d else e

# CHECK:   Assign <3:1-3:18>
# CHECK-NEXT:     target: Name 'x' <3:1-3:2>
# CHECK-NEXT:     value: IfExp <3:5-3:18>
# CHECK-NEXT:       then: Name 'a' <3:5-3:6>
# CHECK-NEXT:       cond: Name 'c' <3:10-3:11>
# CHECK-NEXT:       else: Name 'b' <3:17-3:18>
# CHECK-NEXT:   Assign <4:1-4:30>
# CHECK-NEXT:     target: Name 'y' <4:1-4:2>
# CHECK-NEXT:     value: IfExp <4:5-4:30>
# CHECK-NEXT:       then: Name 'a' <4:5-4:6>
# CHECK-NEXT:       cond: Name 'c' <4:10-4:11>
# CHECK-NEXT:       else: IfExp <4:17-4:30>
# CHECK-NEXT:         then: Name 'b' <4:17-4:18>
# CHECK-NEXT:         cond: Name 'd' <4:22-4:23>
# CHECK-NEXT:         else: Name 'e' <4:29-4:30>
