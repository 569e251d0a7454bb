# RUN: %dlmc --verify-diagnostics --emit=ast %s
# Keyword arguments come after positional ones and are not repeated.
f(a=1, 2)  # expected-error {{positional argument follows keyword argument}}
f(a=1, a=2)  # expected-error {{keyword argument 'a' repeated}}
