# RUN: %dlmc --emit=ast %s | FileCheck %s
# Literals: int64 limits, floats in every spelling, booleans, strings with both quotes,
# escapes decoded, triple-quoted strings, adjacent literals concatenated.
a = 0
b = 9223372036854775807
c = 1.5
d = .25
e = 1e-3
f = 2.
g = 1.5E+10
h = True
i = False
j = "double"
k = 'single'
l = "tab\tnew\nline \\ \"q\" \x41\0"
m = """triple
quoted"""
n = "con" 'cat' "enated"

# CHECK:   Assign <4:1-4:6>
# CHECK-NEXT:     target: Name 'a' <4:1-4:2>
# CHECK-NEXT:     value: IntLiteral 0 <4:5-4:6>
# CHECK-NEXT:   Assign <5:1-5:24>
# CHECK-NEXT:     target: Name 'b' <5:1-5:2>
# CHECK-NEXT:     value: IntLiteral 9223372036854775807 <5:5-5:24>
# CHECK-NEXT:   Assign <6:1-6:8>
# CHECK-NEXT:     target: Name 'c' <6:1-6:2>
# CHECK-NEXT:     value: FloatLiteral 1.5 <6:5-6:8>
# CHECK-NEXT:   Assign <7:1-7:8>
# CHECK-NEXT:     target: Name 'd' <7:1-7:2>
# CHECK-NEXT:     value: FloatLiteral 0.25 <7:5-7:8>
# CHECK-NEXT:   Assign <8:1-8:9>
# CHECK-NEXT:     target: Name 'e' <8:1-8:2>
# CHECK-NEXT:     value: FloatLiteral 0.001 <8:5-8:9>
# CHECK-NEXT:   Assign <9:1-9:7>
# CHECK-NEXT:     target: Name 'f' <9:1-9:2>
# CHECK-NEXT:     value: FloatLiteral 2.0 <9:5-9:7>
# CHECK-NEXT:   Assign <10:1-10:12>
# CHECK-NEXT:     target: Name 'g' <10:1-10:2>
# CHECK-NEXT:     value: FloatLiteral 1.5e+10 <10:5-10:12>
# CHECK-NEXT:   Assign <11:1-11:9>
# CHECK-NEXT:     target: Name 'h' <11:1-11:2>
# CHECK-NEXT:     value: BoolLiteral True <11:5-11:9>
# CHECK-NEXT:   Assign <12:1-12:10>
# CHECK-NEXT:     target: Name 'i' <12:1-12:2>
# CHECK-NEXT:     value: BoolLiteral False <12:5-12:10>
# CHECK-NEXT:   Assign <13:1-13:13>
# CHECK-NEXT:     target: Name 'j' <13:1-13:2>
# CHECK-NEXT:     value: StringLiteral "double" <13:5-13:13>
# CHECK-NEXT:   Assign <14:1-14:13>
# CHECK-NEXT:     target: Name 'k' <14:1-14:2>
# CHECK-NEXT:     value: StringLiteral "single" <14:5-14:13>
# CHECK-NEXT:   Assign <15:1-15:37>
# CHECK-NEXT:     target: Name 'l' <15:1-15:2>
# CHECK-NEXT:     value: StringLiteral "tab\tnew\nline \\ \"q\" A\x00" <15:5-15:37>
# CHECK-NEXT:   Assign <16:1-17:10>
# CHECK-NEXT:     target: Name 'm' <16:1-16:2>
# CHECK-NEXT:     value: StringLiteral "triple\nquoted" <16:5-17:10>
# CHECK-NEXT:   Assign <18:1-18:25>
# CHECK-NEXT:     target: Name 'n' <18:1-18:2>
# CHECK-NEXT:     value: StringLiteral "concatenated" <18:5-18:25>
