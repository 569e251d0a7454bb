# RUN: %dlmc --verify-diagnostics --emit=ast %s
# Function headers and for clauses missing a part.
def (x):  # expected-error {{expected function name after 'def'}}
    pass
for x range(3):  # expected-error {{expected 'in' after 'for' target}}
    pass
