# RUN: %dlmc --emit=ast %s | FileCheck %s
# Comments and blank lines anywhere (also with other indentation) neither end nor
# start blocks.

def f(x):   # trailing comment

    # comment at block indentation
  # comment at another indentation

    y = x


            # deep comment
    return y
# comment at column 1 before a dedented statement
z = f(1)

# CHECK:   FunctionDef 'f' <5:1-14:13>
# CHECK-NEXT:     Param 'x' <5:7-5:8>
# CHECK-NEXT:     body:
# CHECK-NEXT:       Assign <10:5-10:10>
# CHECK-NEXT:         target: Name 'y' <10:5-10:6>
# CHECK-NEXT:         value: Name 'x' <10:9-10:10>
# CHECK-NEXT:       Return <14:5-14:13>
# CHECK-NEXT:         Name 'y' <14:12-14:13>
# CHECK-NEXT:   Assign <16:1-16:9>
# CHECK-NEXT:     target: Name 'z' <16:1-16:2>
# CHECK-NEXT:     value: Call <16:5-16:9>
# CHECK-NEXT:       callee: Name 'f' <16:5-16:6>
# CHECK-NEXT:       IntLiteral 1 <16:7-16:8>
