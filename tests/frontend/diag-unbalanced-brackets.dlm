# RUN: %dlmc --verify-diagnostics --emit=ast %s
# A closing bracket without an opening one is dropped; a mismatched one is reported with a
# note at the bracket it should close, and parsing goes on as if it were the right one.
x = (1 + 2))  # expected-error {{unbalanced ')'}}
y = ]  # expected-error {{unbalanced ']'}}
# expected-note@+1 {{to match this '('}}
z = (1, 2]  # expected-error {{mismatched ']'; expected ')'}}
# expected-note@+1 {{to match this '('}}
w = [f(1], 2)  # expected-error {{mismatched ']'; expected ')'}}
