"""tutorial_error.py DLM TUTORIAL.md STDLIB_DIR: the error docs/tutorial.md section 3/4 shows is
the one dlm prints. Runs the tutorial's program (its ```python blocks, as tutorial_program.py
joins them) as mnist.dlm in the current folder with `nn.init_mlp(28, 256, 10)`, and compares the
first error and its notes, with the stdlib folder written `.../stdlib/`, to the code block after
"the first of its errors reads:". Prints both and exits 1 when they differ."""
import re
import subprocess
import sys

dlm, tutorial, stdlib = sys.argv[1:4]
text = open(tutorial).read()
program = "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))
wrong = program.replace("nn.init_mlp(784, 256, 10)", "nn.init_mlp(28, 256, 10)")
if wrong == program:
    sys.exit("the tutorial no longer calls nn.init_mlp(784, 256, 10)")
open("mnist.dlm", "w").write(wrong)
shown = re.search(r"the first of\s+its errors reads:\n\n```\n(.*?)```", text, re.S)
if not shown:
    sys.exit("no error block after 'the first of its errors reads:' in " + tutorial)
p = subprocess.run([dlm, "run", "mnist.dlm"], capture_output=True, text=True)
if p.returncode != 1:
    sys.exit("dlm run exited %d, expected 1" % p.returncode)
printed = p.stderr.replace(stdlib.rstrip("/") + "/", ".../stdlib/")
lines = printed.splitlines(keepends=True)
errors = [i for i, line in enumerate(lines) if ": error: " in line]
first = "".join(lines[: errors[1] if len(errors) > 1 else len(lines)])
first = re.sub(r"\d+ errors? generated\n$", "", first)
if first != shown.group(1):
    print("docs/tutorial.md shows:\n" + shown.group(1) + "dlm prints:\n" + first)
    sys.exit(1)
print("tutorial error matches")
