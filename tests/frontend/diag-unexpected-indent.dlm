# RUN: %dlmc --verify-diagnostics --emit=ast %s
# Indentation where no block starts: the first line of a file, or a line indented deeper
# than the statement before it.
  x = 1  # expected-error {{unexpected indent}}
y = 2
    z = 3  # expected-error {{unexpected indent}}
