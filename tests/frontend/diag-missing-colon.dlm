# RUN: %dlmc --verify-diagnostics --emit=ast %s
# A missing ':' after each block header is named after the construct, and the parser
# recovers (it inserts the ':') so that every one of them is reported in one run.
def f(x)  # expected-error {{expected ':' after function signature}}
    return x
def g(x) -> int  # expected-error {{expected ':' after function signature}}
    return x
if x  # expected-error {{expected ':' after 'if' condition}}
    pass
elif y  # expected-error {{expected ':' after 'elif' condition}}
    pass
else  # expected-error {{expected ':' after 'else'}}
    pass
while x  # expected-error {{expected ':' after 'while' condition}}
    pass
for i in range(3)  # expected-error {{expected ':' after 'for' clause}}
    pass
