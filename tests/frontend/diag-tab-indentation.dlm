# RUN: %dlmc --verify-diagnostics --emit=ast %s
# A tab in indentation is an error (tabs elsewhere are fine); the line is then taken to
# continue the current block and parsing goes on.
if x:
    y = 1
# expected-error@+1 {{tab in indentation (use spaces)}}
	z = 2
w = [1,	2]
if y:
    # expected-error@+1 {{tab in indentation (use spaces)}}
  	  pass
