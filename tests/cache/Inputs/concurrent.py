"""concurrent.py DLM PROGRAM CACHE_DIR N: N dlm processes started at once on an empty cache.

Each compiles PROGRAM and writes the same entry (through its own temporary file, renamed over
the entry's name), while the others may be reading it: every process must exit 0 and print what
the graph executor prints; afterwards there is exactly one entry, no temporary file, and the
next run hits it. Prints lines for FileCheck.
"""
import os
import subprocess
import sys

dlm, program, cache, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = dict(os.environ, DLM_CACHE_DIR=cache)
reference = subprocess.run([dlm, "run", "--engine=graph", program], capture_output=True, text=True,
                           env=env, check=True).stdout
procs = [subprocess.Popen([dlm, "run", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
         for _ in range(n)]
results = [p.communicate() + (p.returncode,) for p in procs]
print("all exit 0:", all(r[2] == 0 for r in results))
print("all print the same as the graph executor:", all(r[0] == reference for r in results))
print("stderr empty:", all(r[1] == "" for r in results))
files = sorted(os.listdir(cache))
print("files:", len(files), "entry" if len(files) == 1 and files[0].endswith(".dlmobj") else files)
p = subprocess.run([dlm, "run", "--time-passes", program], capture_output=True, text=True, env=env)
print("next run:", "hit" if "cache: hit" in p.stderr else "MISS", "same" if p.stdout == reference else "DIFFERS")
