# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# Misuse of built-ins and values: constant arguments that are not constant, dtypes, tuples,
# strings, indexing, unpacking, load without a type, printing a function.
def f(x, k):
    return sum(x, axis=k)  # expected-error {{'axis' of 'sum' must be a constant int, found f32[3]}}

x = zeros(3)
a = f(x, x)  # expected-note {{'f' called here}}
b = zeros(3, dtype=x)  # expected-error {{'dtype' of 'zeros' must be a dtype (f32, f64, i32, i64, bool), found f32[3]}}
t = (x, 1)
c = t[2]  # expected-error {{tuple index 2 is out of range for (f32[3], int) (2 elements)}}
n = len(x)
d = t[n - 3]
p, q, r = t  # expected-error {{cannot unpack (f32[3], int) (2 elements) into 3 names}}
u, v = x  # expected-error {{cannot unpack f32[3] into 2 names (only tuples can be unpacked)}}
s = "a" + 1  # expected-error {{unsupported operand types for +: str and int}}
i = 3
j = i[0]  # expected-error {{cannot index int}}
k = 1 // 0  # expected-error {{division by zero}}
w = load("w.safetensors")  # expected-error {{load() needs like=VALUE: a tensor or tuple of tensors with the types to read (the file's contents are only known at run time)}}
print(f)  # expected-error {{print() cannot print a function}}
l = [1, 2]  # expected-error {{unsupported construct: a list outside tensor(...); use a tuple}}
m = tensor([[1.0, 2.0], [3.0]])  # expected-error {{tensor(): ragged nested list (1 elements here, 2 elsewhere at this depth)}}
o = (x, x) + (x, x, x)  # expected-error {{tuple operands of '+' have different lengths: (f32[3], f32[3]) and (f32[3], f32[3], f32[3])}}
