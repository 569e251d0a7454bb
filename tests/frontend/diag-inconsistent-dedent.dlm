# RUN: %dlmc --verify-diagnostics --emit=ast %s
# A dedent to a column no enclosing block started at; the statement stays in the block it
# reached, so the rest of the file parses normally.
if x:
    if y:
        a = 1
      b = 2  # expected-error {{unindent does not match any outer indentation level}}
      c = 3
    d = 4
e = 5
