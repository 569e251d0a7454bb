# RUN: %dlmc --emit=ast %s | FileCheck %s
# return with no value, one value, and a tuple (with and without parentheses).
def f(x):
    if x:
        return
    if y:
        return x
    if z:
        return x, y
    return (x, y)

# CHECK:   FunctionDef 'f' <3:1-10:18>
# CHECK-NEXT:     Param 'x' <3:7-3:8>
# CHECK-NEXT:     body:
# CHECK-NEXT:       If <4:5-5:15>
# CHECK-NEXT:         cond: Name 'x' <4:8-4:9>
# CHECK-NEXT:         then:
# CHECK-NEXT:           Return <5:9-5:15>
# CHECK-NEXT:       If <6:5-7:17>
# CHECK-NEXT:         cond: Name 'y' <6:8-6:9>
# CHECK-NEXT:         then:
# CHECK-NEXT:           Return <7:9-7:17>
# CHECK-NEXT:             Name 'x' <7:16-7:17>
# CHECK-NEXT:       If <8:5-9:20>
# CHECK-NEXT:         cond: Name 'z' <8:8-8:9>
# CHECK-NEXT:         then:
# CHECK-NEXT:           Return <9:9-9:20>
# CHECK-NEXT:             Tuple <9:16-9:20>
# CHECK-NEXT:               Name 'x' <9:16-9:17>
# CHECK-NEXT:               Name 'y' <9:19-9:20>
# CHECK-NEXT:       Return <10:5-10:18>
# CHECK-NEXT:         Tuple <10:12-10:18>
# CHECK-NEXT:           Name 'x' <10:13-10:14>
# CHECK-NEXT:           Name 'y' <10:16-10:17>
