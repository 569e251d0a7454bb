"""outputs-close.py A B: the two outputs print the same, with numbers that agree within dlm-diff's
tolerance (scripts/dlm-diff.py: relative 1e-5, absolute 1e-6); exits 1 and says so otherwise."""
import importlib.util
import os
import sys

spec = importlib.util.spec_from_file_location(
    "dlm_diff", os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts", "dlm-diff.py"))
dlm_diff = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dlm_diff)
a, b = (open(path).read() for path in sys.argv[1:3])
if not dlm_diff.numbers_close(a, b):
    sys.exit("outputs differ beyond the tolerance:\n%s---\n%s" % (a, b))
print("close")
