# RUN: %dlmc --emit=ast %s | FileCheck %s
# Calls: no arguments, positional, keyword arguments after positional ones, a trailing
# comma, a call of a call's result.
f()
g(x, 1)
h(x, axis=1, keepdims=True)
k(a, b,)
grad(f, argnums=(0, 1))(x, y)

# CHECK:   ExprStmt <4:1-4:4>
# CHECK-NEXT:     Call <4:1-4:4>
# CHECK-NEXT:       callee: Name 'f' <4:1-4:2>
# CHECK-NEXT:   ExprStmt <5:1-5:8>
# CHECK-NEXT:     Call <5:1-5:8>
# CHECK-NEXT:       callee: Name 'g' <5:1-5:2>
# CHECK-NEXT:       Name 'x' <5:3-5:4>
# CHECK-NEXT:       IntLiteral 1 <5:6-5:7>
# CHECK-NEXT:   ExprStmt <6:1-6:28>
# CHECK-NEXT:     Call <6:1-6:28>
# CHECK-NEXT:       callee: Name 'h' <6:1-6:2>
# CHECK-NEXT:       Name 'x' <6:3-6:4>
# CHECK-NEXT:       kwarg 'axis': IntLiteral 1 <6:11-6:12>
# CHECK-NEXT:       kwarg 'keepdims': BoolLiteral True <6:23-6:27>
# CHECK-NEXT:   ExprStmt <7:1-7:9>
# CHECK-NEXT:     Call <7:1-7:9>
# CHECK-NEXT:       callee: Name 'k' <7:1-7:2>
# CHECK-NEXT:       Name 'a' <7:3-7:4>
# CHECK-NEXT:       Name 'b' <7:6-7:7>
# CHECK-NEXT:   ExprStmt <8:1-8:30>
# CHECK-NEXT:     Call <8:1-8:30>
# CHECK-NEXT:       callee: Call <8:1-8:24>
# CHECK-NEXT:         callee: Name 'grad' <8:1-8:5>
# CHECK-NEXT:         Name 'f' <8:6-8:7>
# CHECK-NEXT:         kwarg 'argnums': Tuple <8:17-8:23>
# CHECK-NEXT:           IntLiteral 0 <8:18-8:19>
# CHECK-NEXT:           IntLiteral 1 <8:21-8:22>
# CHECK-NEXT:       Name 'x' <8:25-8:26>
# CHECK-NEXT:       Name 'y' <8:28-8:29>
