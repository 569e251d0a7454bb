"""Runs `DLMC --emit=KIND FILE` for every --emit kind that `DLMC --help` marks "(not in this
build yet)": prints "ok KIND" when dlmc answers "--emit=KIND is not available in this build
yet" with exit status 2, "BAD KIND: ..." otherwise, and "checked N" at the end (the test keeps
checking the answer while stages are missing and still passes once all have landed)."""
import re
import subprocess
import sys

dlmc, source = sys.argv[1], sys.argv[2]
help_text = subprocess.run([dlmc, "--help"], stdout=subprocess.PIPE, text=True).stdout
kinds = re.findall(r"^\s+(\w+)\s+.*\(not in this build yet\)$", help_text, re.M)
for kind in kinds:
    result = subprocess.run([dlmc, f"--emit={kind}", source], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    expected = f"dlmc: error: --emit={kind} is not available in this build yet"
    good = result.returncode == 2 and result.stdout.strip() == expected
    print(f"ok {kind}" if good else f"BAD {kind}: exit={result.returncode} {result.stdout!r}")
print(f"checked {len(kinds)}")
