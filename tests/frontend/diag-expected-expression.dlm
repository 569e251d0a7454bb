# RUN: %dlmc --verify-diagnostics --emit=ast %s
# A trailing operator or a missing operand: "expected expression", naming the token before.
x = 1 +  # expected-error {{expected expression after '+'}}
y = (2 *)  # expected-error {{expected expression after '*'}}
z = not  # expected-error {{expected expression after 'not'}}
w =  # expected-error {{expected expression after '='}}
if :  # expected-error {{expected expression after 'if'}}
    pass
v = f(a=)  # expected-error {{expected expression after '='}}
