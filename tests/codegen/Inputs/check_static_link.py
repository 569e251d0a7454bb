"""How the tools are linked (cmake/DlmStaticLink.cmake, docs/architecture.md "Linking").

    check_static_link.py BUILD_DIR

With DLM_STATIC_LLVM on, dlm, dlmc and dlm-opt are non-PIE executables with LLVM, ANTLR and
OpenBLAS linked in: no libLLVM, libantlr4-runtime or libopenblas among their shared libraries
(one LLVM per process), no LLVM symbol exported, while dlmir-run (a test tool left on the shared
libraries) still loads libLLVM. With it off every tool loads libLLVM. In a CUDA build the backend module,
which the tools dlopen, must find every runtime symbol it needs among dlm's exports (or, for the
C++ runtime's operator new/delete, in a shared library dlm loads: libstdc++ in CUDA builds, the
sanitizers' run-time library under DLM_SANITIZE)."""
import os, re, subprocess, sys

build = sys.argv[1]
cache = open(os.path.join(build, "CMakeCache.txt")).read()
static = re.search(r"^DLM_STATIC_LLVM:BOOL=(ON|TRUE|1)$", cache, re.M) is not None
failures = []


def shared_libs(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def shared_lib_paths(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    return [m.group(1) for m in re.finditer(r"=> (/\S+)", out)]


def elf_type(binary):
    with open(binary, "rb") as f:
        header = f.read(18)
    return {2: "EXEC", 3: "DYN"}.get(int.from_bytes(header[16:18], "little"), "other")


def exported(binary):
    out = subprocess.run(["nm", "-D", "--defined-only", binary], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


for tool in ["dlm", "dlmc", "dlm-opt"]:
    path = os.path.join(build, "bin", tool)
    libs = shared_libs(path)
    heavy = [l for l in libs if re.match(r"lib(LLVM|antlr4-runtime|openblas)", l)]
    if static:
        if elf_type(path) != "EXEC":
            failures.append("%s is %s, not a non-PIE executable" % (tool, elf_type(path)))
        if heavy:
            failures.append("%s loads %s" % (tool, ", ".join(heavy)))
        llvm = sorted(s for s in exported(path) if "llvm" in s.lower())
        if llvm:
            failures.append("%s exports %d LLVM symbols (%s ...)" % (tool, len(llvm), llvm[0]))
    elif not any(l.startswith("libLLVM") for l in libs):
        failures.append("%s does not load libLLVM with DLM_STATIC_LLVM off" % tool)
    print("%s: %s, %d shared libraries" % (tool, elf_type(path), len(libs)))

if not any(l.startswith("libLLVM") for l in shared_libs(os.path.join(build, "bin", "dlmir-run"))):
    failures.append("dlmir-run does not load the shared libLLVM")

module = os.path.join(build, "lib", "libdlm_cuda_backend.so")
if os.path.exists(module):
    out = subprocess.run(["nm", "-D", "--undefined-only", module], capture_output=True, text=True,
                         check=True).stdout
    # Versioned names (foo@GLIBC_2.2.5) come from the system libraries, weak ones may stay unset.
    needed = {f[1] for f in (l.split() for l in out.splitlines()) if f[0] == "U" and "@" not in f[1]}
    dlm = os.path.join(build, "bin", "dlm")
    provided = exported(dlm)
    for lib in shared_lib_paths(dlm):
        provided |= exported(lib)
    missing = sorted(needed - provided)
    for name in missing:
        failures.append("dlm does not export %s, which the CUDA backend needs" % name)
    if not missing:
        print("CUDA backend: the %d runtime symbols it needs are exported by dlm or its shared libraries" % len(needed))

for f in failures:
    print("error:", f)
print("linking: %s, %d problems" % ("static" if static else "shared", len(failures)))
sys.exit(1 if failures else 0)
