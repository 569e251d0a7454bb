# RUN: %dlmc --verify-diagnostics --emit=ast %s
# Annotations: unknown type names, dimensions that are neither integers nor capitalised
# names, a dtype after a dimension, parameters on scalar types, integers in tuple[...].
def f(a: Foo):  # expected-error {{unknown type 'Foo'}}
    pass
def g(a: Tensor[b]):  # expected-error {{expected a dimension (an integer or a capitalised name like 'B') or a dtype}}
    pass
def h(a: Tensor[N, f32]):  # expected-error {{the dtype 'f32' must come first in a Tensor annotation}}
    pass
def k(a: int[3]):  # expected-error {{type 'int' takes no parameters}}
    pass
def m(a: tuple[Tensor, 3]):  # expected-error {{expected a type in 'tuple[...]', found an integer}}
    pass
