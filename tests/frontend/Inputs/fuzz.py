"""Mutation fuzzing of the frontend: `fuzz.py DLMC N SEED FILES...` runs `DLMC --emit=ast` on N
inputs made by randomly mutating FILES (deleting, duplicating and inserting bytes and tokens)
and prints every input whose exit status is not 0 or 1 (a crash, an internal error, a hang);
then "ok" if there were none. Deterministic for a given SEED."""
import random
import subprocess
import sys
import tempfile

dlmc, count, seed, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
rng = random.Random(seed)
corpus = [open(f, "rb").read() for f in files]
pieces = [b"(", b")", b"[", b"]", b":", b",", b"\n", b"    ", b"\t", b"\\\n", b'"', b"'", b'"""',
          b"if ", b"else", b"def ", b"return", b"**", b"-", b"not ", b"=", b"+=", b"@", b".",
          b"\x00", b"\xff", b"\xc3\xa9", b"#", b"1e999", b"99999999999999999999", b"lambda"]


def mutate(data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(4)
        at = rng.randrange(len(data) + 1)
        if op == 0 and data:
            del data[at:at + rng.randint(1, 8)]
        elif op == 1 and data:
            start = rng.randrange(len(data))
            data[at:at] = data[start:start + rng.randint(1, 40)]
        else:
            data[at:at] = rng.choice(pieces)
    return bytes(data)


failures = 0
with tempfile.NamedTemporaryFile(suffix=".dlm") as f:
    for i in range(count):
        data = mutate(rng.choice(corpus))
        f.seek(0)
        f.truncate()
        f.write(data)
        f.flush()
        try:
            status = subprocess.run([dlmc, "--emit=ast", f.name], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, timeout=30).returncode
        except subprocess.TimeoutExpired:
            status = "timeout"
        if status not in (0, 1):
            failures += 1
            print(f"input {i}: exit status {status}: {data!r}")
print("ok" if failures == 0 else f"{failures} failures")
