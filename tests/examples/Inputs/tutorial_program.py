"""tutorial_program.py FILE.md: the ```python blocks of docs/tutorial.md (or README.md), in order, as one
program (tests/examples/tutorial.test runs it, so the tutorial's code stays true). Blocks that
repeat an earlier line (the tutorial shows imports where they are first needed) are kept whole:
dlm accepts an import anywhere at the top level."""
import re
import sys

text = open(sys.argv[1]).read()
blocks = re.findall(r"```python\n(.*?)```", text, re.S)
if not blocks:
    sys.exit("no ```python blocks in " + sys.argv[1])
print("\n".join(blocks), end="")
