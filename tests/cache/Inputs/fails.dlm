# Stops at run time on line 9 (a shape known only then): the error names the line and shows it,
# text the failure-site table of the compiled object carries.
k = 2
for i in range(3):
    k = k + 1
a = zeros(k)
b = ones(k - 1)
print(sum(a))
print(a + b)  # the sum of two sizes
