# RUN: %dlmc --verify-diagnostics --emit=ast %s
# A string literal must end on its line (triple-quoted ones may span lines); the error
# points at the opening quote and parsing continues on the next line.
x = "abc  # expected-error {{unterminated string literal}}
y = 'it  # expected-error {{unterminated string literal}}
z = """ok
across lines"""
w = 1 +  # expected-error {{expected expression after '+'}}
