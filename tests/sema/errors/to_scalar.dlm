# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# float(), int() and bool() convert a number or a 0-d tensor to the language's scalar; anything
# else is an error at the argument, with the elementwise spelling for a tensor. `bool` is also a
# dtype: called, it converts, while the other dtypes still say to use astype.
x = tensor([1.0, 2.0])
a = float(x)  # expected-error {{float() needs a number or a 0-d tensor, found f32[2]; for every element use x.astype(f64)}}
b = int(x[0:1])  # expected-error {{int() needs a number or a 0-d tensor, found f32[1]; for every element use x.astype(i64)}}
c = bool(x)  # expected-error {{bool() needs a number or a 0-d tensor, found f32[2]; for every element use x.astype(bool)}}
d = float("1.5")  # expected-error {{float() needs a number or a 0-d tensor, found str}}
e = f64(x)  # expected-error {{'f64' is a dtype, not a function; use x.astype(f64)}}
ok = float(x[0]) + int(sum(x)) + bool(x[1] > 0.0)
