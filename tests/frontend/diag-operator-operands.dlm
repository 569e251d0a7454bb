# RUN: %dlmc --verify-diagnostics --emit=ast %s
# The expression grammar is one precedence-climbing rule, which would accept a prefix 'not'
# after any operator and a conditional expression as a condition; the AST builder rejects
# both as Python does, since 'not' binds more loosely than every operator but 'and'/'or'.
x = a == not b  # expected-error {{'not' after '==' needs parentheses: write '== (not ...)'}}
y = -not c  # expected-error {{'not' after '-' needs parentheses}}
z = a * not b  # expected-error {{'not' after '*' needs parentheses}}
p = a ** not b  # expected-error {{'not' after '**' needs parentheses}}
w = a if b if c else d else e  # expected-error {{a conditional expression as a condition needs parentheses}}
v = a < b < c < d  # expected-error {{chained comparisons are not supported; write 'a < b and b < c'}}
# Accepted: 'not' after 'and', 'or', 'not', 'if', 'else'; parenthesised forms.
ok1 = a and not b or not not c
ok2 = x if not c else not y
ok3 = a == (not b)
ok4 = a if (b if c else d) else e
