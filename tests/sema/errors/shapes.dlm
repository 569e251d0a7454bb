# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# Shape errors found before anything runs, each pointing at the culprit with notes where the
# operands were defined: matmul inner dims, broadcasting, axes, reshape element counts,
# constant indices on known dims, too many indices, bad slices.
a = zeros(3, 4)
b = zeros(5, 6)
c = a @ b  # expected-error {{matmul: 4 columns on the left vs 5 rows on the right (f32[3, 4] @ f32[5, 6])}}
# expected-note@-3 {{'a' is f32[3, 4], defined here}}
# expected-note@-3 {{'b' is f32[5, 6], defined here}}

d = zeros(5)
e = a + d  # expected-error {{cannot broadcast f32[3, 4] with f32[5]}}
# expected-note@-8 {{'a' is f32[3, 4], defined here}}
# expected-note@-3 {{'d' is f32[5], defined here}}

f = sum(a, axis=2)  # expected-error {{axis 2 is out of range for f32[3, 4] (rank 2)}}
g = reshape(a, 5, 3)  # expected-error {{cannot reshape f32[3, 4] (12 elements) to [5, 3] (15 elements)}}
h = reshape(a, 5, -1)  # expected-error {{cannot reshape f32[3, 4] (12 elements) to [5, -1]: 12 is not a multiple of 5}}
i = a[3]  # expected-error {{index 3 is out of range for dim 0 of f32[3, 4] (size 3)}}
# expected-note@-15 {{'a' is f32[3, 4], defined here}}
j = a[0, -5]  # expected-error {{index -5 is out of range for dim 1 of f32[3, 4] (size 4)}}
# expected-note@-17 {{'a' is f32[3, 4], defined here}}
k = d[1, 2]  # expected-error {{too many indices for f32[5] (rank 1): 2 given}}
l = d[::0]  # expected-error {{slice step cannot be zero}}
m = matmul(d, a)  # expected-error {{matmul: 5 columns on the left vs 3 rows on the right (f32[5] @ f32[3, 4])}}
# expected-note@-15 {{'d' is f32[5], defined here}}
# expected-note@-22 {{'a' is f32[3, 4], defined here}}
n = concat((a, b), axis=0)  # expected-error {{concat: dim 1 of f32[5, 6] does not match f32[3, 4]}}
o = transpose(a, (0, 0))  # expected-error {{transpose: axis 0 appears twice}}
p = zeros(2, -3)  # expected-error {{negative dimension -3 in 'zeros'}}
q = split(d, 2)  # expected-error {{cannot split 5 elements of f32[5] into 2 equal parts}}
images = zeros(8, 1, 28, 28)
kernel = zeros(16, 3, 3, 3)
r = conv2d(images, kernel)  # expected-error {{conv2d: 1 input channels vs 3 in the weight (f32[8, 1, 28, 28], f32[16, 3, 3, 3])}}
# expected-note@-3 {{'images' is f32[8, 1, 28, 28], defined here}}
# expected-note@-3 {{'kernel' is f32[16, 3, 3, 3], defined here}}
labels = zeros(8)
s = cross_entropy(zeros(8, 10), labels)  # expected-error {{cross_entropy: labels must be integer [N], found f32[8]}}
t = dropout(a, 1.5)  # expected-error {{dropout probability must be in [0, 1), found 1.5}}
