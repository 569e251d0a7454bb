# RUN: %dlmc --verify-diagnostics --emit=ast %s
# Tokens after a complete statement: one statement per line, no chained assignment.
x = 1 2  # expected-error {{expected end of line after statement, found number '2'}}
a = b = 1  # expected-error {{expected end of line after statement, found '='}}
print(x) y  # expected-error {{expected end of line after statement, found name 'y'}}
