"""damage.py DLM PROGRAM CACHE_DIR: damaged entries are misses that recompile and overwrite.

Runs PROGRAM once to store its entry, then for each way an entry file can be damaged (a flipped
byte of the object, of the key or of the checksum, cut short in the object or in the header,
empty, another file's text under the entry's name, an entry of a newer format) damages it,
runs again, and checks that the run prints exactly what the first did, exits 0, says (under
--time-passes) why the entry missed and that it stored it again, and that the run after that
hits. Prints one line per case for FileCheck.
"""
import os
import subprocess
import sys

dlm, program, cache = sys.argv[1:4]
env = dict(os.environ, DLM_CACHE_DIR=cache)


def run():
    p = subprocess.run([dlm, "run", "--time-passes", program], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit("dlm exited %d:\n%s" % (p.returncode, p.stderr))
    cache_lines = [l for l in p.stderr.splitlines() if l.startswith("cache: ")]
    return p.stdout, cache_lines


reference, lines = run()
entries = [f for f in os.listdir(cache) if f.endswith(".dlmobj")]
assert len(entries) == 1, entries
entry = os.path.join(cache, entries[0])
good = open(entry, "rb").read()
HEADER = 96


def flip(offset):
    return lambda b: b[:offset] + bytes([b[offset] ^ 0x40]) + b[offset + 1:]


cases = [
    ("object byte", flip(HEADER + len(good[HEADER:]) // 2)),
    ("key byte", flip(16)),
    ("checksum byte", flip(60)),
    ("length field", flip(48)),
    ("object cut short", lambda b: b[:HEADER + 100]),
    ("header cut short", lambda b: b[:40]),
    ("empty", lambda b: b""),
    ("foreign file", lambda b: b"not an object at all\n" * 10),
    ("newer format", lambda b: b[:8] + bytes([2]) + b[9:]),
]
for name, damage in cases:
    with open(entry, "wb") as f:
        f.write(damage(good))
    out, lines = run()
    miss = [l for l in lines if l.startswith("cache: miss")]
    stored = any(l.startswith("cache: stored") for l in lines)
    again, after = run()
    hit = any(l.startswith("cache: hit") for l in after)
    same = out == reference and again == reference
    print("%s: %s; %s; %s; %s" % (name, miss[0].split("(", 1)[1].rstrip(")") if miss else "NO MISS",
                                   "stored" if stored else "NOT STORED", "hit after" if hit else "NO HIT AFTER",
                                   "same output" if same else "OUTPUT DIFFERS"))
    assert open(entry, "rb").read() == good, "the entry was not rewritten as before"
