# RUN: %dlmc --verify-diagnostics --emit=ast %s
# A bracket that is never closed swallows the rest of the file (implicit line joining), so
# it is reported at the bracket and nothing after it is.
x = 1
y = f(x,  # expected-error {{'(' was never closed}}
z = 2
if z
    pass
