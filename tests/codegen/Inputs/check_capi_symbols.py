"""Every runtime entry the emitter calls (a "dlm_..." name in compiler/codegen) must be defined in
the JIT by DLM_CAPI_SYMBOLS (JitSession.cpp). A missing one still resolves while the dlm binary
happens to export it, and fails to link as soon as it does not."""
import glob, re, sys

src = sys.argv[1]
# The module's own functions and the interrupt flag (data, defined apart) are not entries.
own = {"dlm_main", "dlm_init", "dlm_fini", "dlm_release_tensors", "dlm_fused", "dlm_fused_",
       "dlm_interrupt_flag"}
used = set()
for path in glob.glob(src + "/compiler/codegen/*.cpp"):
    used |= set(re.findall(r'"(dlm_\w+)"', open(path).read())) - own
codegen = open(src + "/compiler/codegen/JitSession.cpp").read()
block = re.search(r"#define DLM_CAPI_SYMBOLS\(X\)(.*?)\n\n", codegen, re.S).group(1)
defined = set(re.findall(r"X\((dlm_\w+)\)", block))
missing = sorted(used - defined)
for name in missing:
    print("missing from DLM_CAPI_SYMBOLS:", name)
print("checked %d entries" % len(used))
sys.exit(1 if missing else 0)
