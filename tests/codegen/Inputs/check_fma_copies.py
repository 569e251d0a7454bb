"""check_fma_copies.py EXE: an executable for the generic x86-64 target runs on any x86-64 CPU.
Outside its FMA copies — the generated functions named '*.fma' and the portable runtime's kernels
in namespace dlm::rt::cpu::fma (docs/codegen.md "AOT") — no instruction uses an AVX register or
FMA; the copies do use FMA, and nothing uses AVX-512 (zmm)."""
import re
import subprocess
import sys

out = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", sys.argv[1]],
                     capture_output=True, text=True, check=True).stdout
FMA = re.compile(r"\bvf(?:n?m(?:add|sub)|maddsub|msubadd)")
function, copies, baseline = None, {}, {}
for line in out.splitlines():
    header = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
    if header:
        function = header.group(1)
        copy = function.endswith(".fma") or "::fma::" in function
        (copies if copy else baseline).setdefault(function, set())
        continue
    if function is None or not line.startswith(" "):
        continue
    uses = (copies if function in copies else baseline)[function]
    if FMA.search(line):
        uses.add("fma")
    if "%ymm" in line:
        uses.add("ymm")
    if "%zmm" in line:
        uses.add("zmm")
for name, uses in sorted(baseline.items()):
    if uses:
        print("baseline function uses %s: %s" % (", ".join(sorted(uses)), name))
for name, uses in sorted(copies.items()):
    if "zmm" in uses:
        print("FMA copy uses zmm: %s" % name)
print("baseline functions with AVX or FMA: %d" % sum(1 for u in baseline.values() if u))
print("generated FMA copies with FMA: %d" %
      sum(1 for n, u in copies.items() if n.endswith(".fma") and "fma" in u))
print("runtime FMA copies with FMA: %d" %
      sum(1 for n, u in copies.items() if "::fma::" in n and "fma" in u))
