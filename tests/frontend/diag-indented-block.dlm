# RUN: %dlmc --verify-diagnostics --emit=ast %s
# A block header followed by a line that is not indented.
def f(x):
return x  # expected-error {{expected an indented block after function definition}}
while x:
y = 1  # expected-error {{expected an indented block after 'while' statement}}
