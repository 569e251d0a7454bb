"""Splits --emit=ptx output into its modules and assembles each with ptxas -arch=sm_90.

usage: ptxas_each.py PTXAS FILE.ptx TMPPREFIX; prints 'ptxas: N kernels assembled for sm_90'
and exits 1 (with ptxas's messages) when a module does not assemble."""
import re
import subprocess
import sys

ptxas, path, prefix = sys.argv[1:4]
text = open(path).read()
modules = [m for m in re.split(r"^// fused .*$", text, flags=re.M) if ".entry" in m]
for i, module in enumerate(modules):
    src = f"{prefix}.{i}.ptx"
    open(src, "w").write(module)
    r = subprocess.run([ptxas, "-arch=sm_90", src, "-o", f"{prefix}.{i}.cubin"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.stdout.write(f"ptxas failed on module {i}:\n{r.stdout}{r.stderr}")
        sys.exit(1)
print(f"ptxas: {len(modules)} kernels assembled for sm_90")
