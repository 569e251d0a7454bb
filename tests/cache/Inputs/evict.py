"""evict.py DLM SMALL_DLM WORK_DIR: the cache's size bound and what eviction removes.

Variants of SMALL_DLM (other seeds) give entries A, B, C, D, E. With A oldest, then B, then C, a
hit on A makes it the most recently used, so storing D under a bound that holds three of them
removes B (the least recently used), not A. A temporary file of a writer that died over an hour
ago is removed, a fresh one (a writer at work) and files that are not entries are kept. A bound
of 0 keeps nothing, and every run still prints the right output. Prints lines for FileCheck.
"""
import os
import subprocess
import sys
import time

dlm, small, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
source = open(small).read()
assert "seed(3)" in source


def program(name):
    path = os.path.join(work, name + ".dlm")
    with open(path, "w") as f:
        f.write(source.replace("seed(3)", "seed(%d)" % (10 + ord(name))))
    return path


def run(path, cache, **extra):
    env = dict(os.environ, DLM_CACHE_DIR=cache, **extra)
    p = subprocess.run([dlm, "run", "--time-passes", path], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    graph = subprocess.run([dlm, "run", "--engine=graph", path], capture_output=True, text=True, env=env)
    assert p.stdout == graph.stdout, (p.stdout, graph.stdout)
    assert "warning" not in p.stderr, p.stderr
    return [l for l in p.stderr.splitlines() if l.startswith("cache: ")]


def entries(cache):
    return sorted(f for f in os.listdir(cache) if f.endswith(".dlmobj"))


def entry_of(lines):
    """The entry file a run stored or hit."""
    for l in lines:
        if l.startswith(("cache: stored", "cache: hit")):
            return os.path.basename(l.split()[2])
    raise AssertionError(lines)


cache = os.path.join(work, "cache")
names = {}
for n in "ABC":
    names[n] = entry_of(run(program(n), cache))
assert entries(cache) == sorted(names.values())
now = time.time()
for age, n in ((300, "A"), (200, "B"), (100, "C")):
    os.utime(os.path.join(cache, names[n]), (now - age, now - age))
print("hit A:", "hit" if any(l.startswith("cache: hit") for l in run(program("A"), cache)) else "MISS")
print("A touched:", os.path.getmtime(os.path.join(cache, names["A"])) > now - 60)

# D's entry size, from a cache of its own (objects are deterministic).
side = os.path.join(work, "side")
names["D"] = entry_of(run(program("D"), side))
size = {n: os.path.getsize(os.path.join(cache if n != "D" else side, names[n])) for n in "ABCD"}
bound = size["A"] + size["C"] + size["D"] + min(size.values()) // 2
run(program("D"), cache, DLM_CACHE_MAX_SIZE=str(bound))
left = sorted(n for n in "ABCD" if names[n] in entries(cache))
print("after storing D under a bound of three entries:", " ".join(left))

# Temporary files: an hour-old one is a dead writer's; a fresh one may be a live writer's.
dead = os.path.join(cache, names["A"][:64] + "-deadbeef.tmp")
live = os.path.join(cache, names["A"][:64] + "-livewrtr.tmp")
foreign = os.path.join(cache, "notes.txt")
for path in (dead, live, foreign):
    open(path, "w").write("x")
old = now - 2 * 3600
os.utime(dead, (old, old))
os.utime(foreign, (old, old))
run(program("E"), cache)
print("dead writer's file:", "kept" if os.path.exists(dead) else "removed")
print("live writer's file:", "kept" if os.path.exists(live) else "removed")
print("foreign file:", "kept" if os.path.exists(foreign) else "removed")

# A bound of 0 keeps no entry; suffixes are accepted.
zero = os.path.join(work, "zero")
run(program("A"), zero, DLM_CACHE_MAX_SIZE="0")
print("bound 0:", len(entries(zero)), "entries")
run(program("A"), zero, DLM_CACHE_MAX_SIZE="1k")
print("bound 1k:", len(entries(zero)), "entries")
run(program("A"), zero, DLM_CACHE_MAX_SIZE="64M")
print("bound 64M:", len(entries(zero)), "entries")
