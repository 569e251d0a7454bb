#!/usr/bin/env python3
"""Writes the straight-line programs of issue #27 (compile time against program size) as .dlm
scripts and as JAX twins computing the same thing.

    gen.py OUT_DIR [--sizes 1000,2000,4000,8000] [--families elementwise,matmul,...]

writes OUT_DIR/<family>_<N>.dlm and OUT_DIR/<family>_<N>_jax.py for each family and size. N is
the number of tensor ops the source spells out (each `+`, `*`, `@`, call of an op counts one; a
gradient's backward ops come on top, about twice the forward's):

- elementwise: `x = x * 1.0001 + c` and `x = tanh(x) + x`, alternating, on a 4-element tensor
  (2 ops a line): the issue's program.
- matmul: `x = x @ w` on 8x8 matrices, one op a line.
- mixed: `x = tanh(x @ w + b)` then `x = x * 0.5 + x` on [8, 16] (5 ops per pair of lines).
- mlp_grad: the gradient of a deep MLP written layer by layer (`h = relu(h @ p[k] + p[k+1])`,
  width 16, batch 8; 3 forward ops a layer), with respect to every weight.
- transformer: a transformer block (single-head attention with softmax, a residual MLP, two
  layer norms; [8, 16]; 30 ops) repeated N / 30 times, the weights shared.

Each program prints one number at the end (a sum), which its JAX twin prints too; the twin times
JAX's first call (trace + XLA compile + run) of `jax.jit(f)` and prints it as `jax-first-call:
SECONDS` on stderr.
"""
import argparse
import os

FAMILIES = ("elementwise", "matmul", "mixed", "mlp_grad", "transformer")


def wave(shape, scale, shift=0.0):
    """A deterministic input both programs compute alike: sin(0, 1.7, 3.4, ...) * scale + shift
    in f32, reshaped; returns (dlm expression, JAX expression). (The frameworks' random numbers
    differ; these make the two programs print the same sum.)"""
    n = 1
    for d in shape:
        n *= d
    dims = ", ".join(str(d) for d in shape)
    base = f"sin(arange({n}, dtype=f32) * 1.7)"
    jbase = f"jnp.sin(jnp.arange({n}, dtype=jnp.float32) * 1.7)"
    if len(shape) > 1:
        base = f"reshape({base}, {dims})"
        jbase = f"{jbase}.reshape({dims})"
    tail = f" * {scale}" + (f" + {shift}" if shift else "")
    return base + tail, jbase + tail


def elementwise(n):
    x, jx = wave([4], 0.5, 0.5)
    c, jc = wave([4], 0.001)
    dlm = [f"x = {x}", f"c = {c}"]
    body = []
    for k in range(n // 2):
        body.append("x = x * 1.0001 + c" if k % 2 == 0 else "x = tanh(x) + x")
    dlm += body + ["print(sum(x))"]
    jax = ["def f(x, c):"] + ["    " + line.replace("tanh(", "jnp.tanh(") for line in body]
    jax += ["    return jnp.sum(x)", "", f"args = ({jx}, {jc})"]
    return dlm, jax


def matmul(n):
    # w averages the columns (a projection: w @ w = w), so the chain neither vanishes nor grows.
    x, jx = wave([8, 8], 1.0)
    dlm = [f"x = {x}", "w = ones(8, 8) * 0.125"]
    body = ["x = x @ w"] * n
    dlm += body + ["print(sum(x))"]
    jax = ["def f(x, w):"] + ["    " + line for line in body]
    jax += ["    return jnp.sum(x)", "", f"args = ({jx}, jnp.ones((8, 8)) * 0.125)"]
    return dlm, jax


def mixed(n):
    x, jx = wave([8, 16], 1.0)
    w, jw = wave([16, 16], 0.1)
    b, jb = wave([16], 0.01)
    dlm = [f"x = {x}", f"w = {w}", f"b = {b}"]
    body = []
    for k in range(n // 5):
        body += ["x = tanh(x @ w + b)", "x = x * 0.5 + x"]
    dlm += body + ["print(sum(x))"]
    jax = ["def f(x, w, b):"] + ["    " + line.replace("tanh(", "jnp.tanh(") for line in body]
    jax += ["    return jnp.sum(x)", "", f"args = ({jx}, {jw}, {jb})"]
    return dlm, jax


def mlp_grad(n):
    layers = max(1, n // 3)
    body = ["    h = x"]
    for k in range(layers):
        body.append(f"    h = relu(h @ p[{2 * k}] + p[{2 * k + 1}])")
    body.append("    return sum(h)")
    weight, jweight = wave([16, 16], 0.25)
    bias, jbias = wave([16], 0.01)
    params = [weight, bias] * layers
    x, jx = wave([8, 16], 1.0)
    dlm = ["def loss(p, x):"] + body + ["", f"x = {x}", "p = ("]
    dlm += [f"    {e}," for e in params] + [")", "g = grad(loss)(p, x)"]
    # One number from every gradient: the sum of their sums, a line each (one expression of
    # thousands of terms would nest too deeply for the parser).
    dlm.append("s = sum(g[0])")
    dlm += [f"s = s + sum(g[{k}])" for k in range(1, len(params))]
    dlm.append("print(s)")
    jax = ["def loss(p, x):"] + [line.replace("relu(", "jax.nn.relu(") for line in body]
    jax[-1] = "    return jnp.sum(h)"
    jax += ["", "def f(p, x):", "    g = jax.grad(loss)(p, x)",
            "    return sum(jnp.sum(t) for t in g)", "",
            f"args = (({jweight}, {jbias}) * {layers}, {jx})"]
    return dlm, jax


TRANSFORMER_BLOCK = [
    # layer norm 1: mean, sub, square, mean, add, sqrt, div, mul, add (9)
    "m = mean(x, axis=1, keepdims=True)",
    "d = x - m",
    "v = mean(d * d, axis=1, keepdims=True)",
    "h = d / sqrt(v + 0.00001) * g1 + b1",
    # attention: 3 projections, transpose, scores, scale, softmax, mix, output projection,
    # residual (10)
    "q = h @ wq",
    "k = h @ wk",
    "a = softmax(q @ k.T * 0.25, axis=1)",
    "x = x + (a @ (h @ wv)) @ wo",
    # layer norm 2 (9) and the MLP with its residual (5)
    "m = mean(x, axis=1, keepdims=True)",
    "d = x - m",
    "v = mean(d * d, axis=1, keepdims=True)",
    "h = d / sqrt(v + 0.00001) * g2 + b2",
    "x = x + relu(h @ w1 + c1) @ w2",
]
TRANSFORMER_OPS = 33


def transformer(n):
    blocks = max(1, n // TRANSFORMER_OPS)
    weights = [("wq", wave([16, 16], 0.25)), ("wk", wave([16, 16], 0.2)),
               ("wv", wave([16, 16], 0.25)), ("wo", wave([16, 16], 0.1)),
               ("w1", wave([16, 32], 0.25)), ("c1", wave([32], 0.01)),
               ("w2", wave([32, 16], 0.1)), ("g1", wave([16], 0.25, 1.0)),
               ("b1", wave([16], 0.1)), ("g2", wave([16], 0.25, 1.0)), ("b2", wave([16], 0.1))]
    x, jx = wave([8, 16], 1.0)
    dlm = [f"x = {x}"] + [f"{name} = {e[0]}" for name, e in weights]
    body = TRANSFORMER_BLOCK * blocks
    dlm += body + ["print(sum(x))"]
    names = ", ".join(name for name, _ in weights)

    def to_jax(line):
        line = line.replace("mean(", "jnp.mean(").replace("sqrt(", "jnp.sqrt(")
        line = line.replace("softmax(", "jax.nn.softmax(").replace("relu(", "jax.nn.relu(")
        return line

    jax = [f"def f(x, {names}):"] + ["    " + to_jax(line) for line in body]
    jax += ["    return jnp.sum(x)", "",
            f"args = ({jx}, " + ", ".join(e[1] for _, e in weights) + ")"]
    return dlm, jax


JAX_HEADER = """\
# Generated by bench/compile/gen.py: the JAX twin of {name}.dlm. Prints the same sum on stdout
# and JAX jit's first call (trace + XLA compile + run) on stderr.
import sys
import time

import jax
import jax.numpy as jnp

jax.config.update("jax_platform_name", "cpu")

"""

JAX_FOOTER = """
start = time.perf_counter()
out = jax.jit(f)(*args)
out.block_until_ready()
print(f"jax-first-call: {time.perf_counter() - start:.3f}", file=sys.stderr)
print(float(out))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--sizes", default="1000,2000,4000,8000")
    parser.add_argument("--families", default=",".join(FAMILIES))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for family in args.families.split(","):
        if family not in FAMILIES:
            parser.error(f"unknown family '{family}' (one of {', '.join(FAMILIES)})")
        for n in (int(s) for s in args.sizes.split(",")):
            dlm, jax = globals()[family](n)
            name = f"{family}_{n}"
            with open(os.path.join(args.out, name + ".dlm"), "w") as out:
                out.write(f"# Generated by bench/compile/gen.py: {family}, N = {n}.\n")
                out.write("\n".join(dlm) + "\n")
            with open(os.path.join(args.out, name + "_jax.py"), "w") as out:
                out.write(JAX_HEADER.format(name=name) + "\n".join(jax) + "\n" + JAX_FOOTER)


if __name__ == "__main__":
    main()
