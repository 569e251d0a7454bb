# RUN: %dlmc --verify-diagnostics --emit=ast %s
# Literals the grammar accepts but the language does not: an int beyond 64 bits, a float
# beyond double, an unknown escape.
a = 9223372036854775808  # expected-error {{integer literal '9223372036854775808' does not fit in a 64-bit int}}
b = 1e999  # expected-error {{floating-point literal '1e999' is out of range}}
c = "a\qb"  # expected-error {{unknown escape sequence '\q'}}
d = 9223372036854775807
