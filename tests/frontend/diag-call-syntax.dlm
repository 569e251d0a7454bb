# RUN: %dlmc --verify-diagnostics --emit=ast %s
# A missing separator in calls, subscripts and lists.
f(1 2)  # expected-error {{expected ',' or ')', found number '2'}}
x[1 2]  # expected-error {{expected ',' or ']', found number '2'}}
y = [1 2]  # expected-error {{expected ',' or ']', found number '2'}}
