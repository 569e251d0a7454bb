# RUN: %dlmc --emit=ast %s | FileCheck %s
# Attributes: x.shape, x.T, module functions and method sugar (a Call whose callee is an
# Attribute).
s = x.shape
t = x.T
y = nn.linear(x, w)
z = x.sum(axis=0)
u = x.astype(f64).T

# CHECK:   Assign <4:1-4:12>
# CHECK-NEXT:     target: Name 's' <4:1-4:2>
# CHECK-NEXT:     value: Attribute 'shape' <4:5-4:12>
# CHECK-NEXT:       Name 'x' <4:5-4:6>
# CHECK-NEXT:   Assign <5:1-5:8>
# CHECK-NEXT:     target: Name 't' <5:1-5:2>
# CHECK-NEXT:     value: Attribute 'T' <5:5-5:8>
# CHECK-NEXT:       Name 'x' <5:5-5:6>
# CHECK-NEXT:   Assign <6:1-6:20>
# CHECK-NEXT:     target: Name 'y' <6:1-6:2>
# CHECK-NEXT:     value: Call <6:5-6:20>
# CHECK-NEXT:       callee: Attribute 'linear' <6:5-6:14>
# CHECK-NEXT:         Name 'nn' <6:5-6:7>
# CHECK-NEXT:       Name 'x' <6:15-6:16>
# CHECK-NEXT:       Name 'w' <6:18-6:19>
# CHECK-NEXT:   Assign <7:1-7:18>
# CHECK-NEXT:     target: Name 'z' <7:1-7:2>
# CHECK-NEXT:     value: Call <7:5-7:18>
# CHECK-NEXT:       callee: Attribute 'sum' <7:5-7:10>
# CHECK-NEXT:         Name 'x' <7:5-7:6>
# CHECK-NEXT:       kwarg 'axis': IntLiteral 0 <7:16-7:17>
# CHECK-NEXT:   Assign <8:1-8:20>
# CHECK-NEXT:     target: Name 'u' <8:1-8:2>
# CHECK-NEXT:     value: Attribute 'T' <8:5-8:20>
# CHECK-NEXT:       Call <8:5-8:18>
# CHECK-NEXT:         callee: Attribute 'astype' <8:5-8:13>
# CHECK-NEXT:           Name 'x' <8:5-8:6>
# CHECK-NEXT:         Name 'f64' <8:14-8:17>
