# RUN: %dlmc --verify-diagnostics --emit=ast %s
# Chained comparisons are rejected with the rewrite that means the same.
x = a < b < c  # expected-error {{chained comparisons are not supported; write 'a < b and b < c'}}
y = a == b != c  # expected-error {{write 'a == b and b != c'}}
