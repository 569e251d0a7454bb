# RUN: %dlmc --verify-diagnostics --emit=ast %s
# Only names and (nested) tuples of names can be assigned; augmented assignment and
# annotations need a single name.
f(x) = 1  # expected-error {{cannot assign to a function call}}
x[0] = 1  # expected-error {{cannot assign to a subscript}}
x.y = 1  # expected-error {{cannot assign to an attribute}}
1 = x  # expected-error {{cannot assign to a literal}}
a, f(b) = t  # expected-error {{cannot assign to a function call}}
() = t  # expected-error {{cannot assign to an empty tuple}}
a + b = 1  # expected-error {{cannot assign to an expression}}
x[0] += 1  # expected-error {{the target of '+=' must be a name}}
a, b: int = t  # expected-error {{only a single name can be annotated}}
for f(i) in range(3):  # expected-error {{cannot assign to a function call}}
    pass
