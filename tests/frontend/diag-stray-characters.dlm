# RUN: %dlmc --verify-diagnostics --emit=ast %s
# Characters no token starts with are reported and dropped; one error per line.
x = y $ 2  # expected-error {{unexpected character '$'}}
z = 3 ;  # expected-error {{unexpected ';' (dlm has one statement per line)}}
w = a ? b  # expected-error {{unexpected character '?'}}
v = {1}  # expected-error {{unexpected character '{'}}
u = é  # expected-error {{unexpected character U+00E9 'é'}}
t = a \ b  # expected-error {{unexpected '\': a line continuation must end the line}}
