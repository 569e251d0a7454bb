# lit configuration for dlm's golden and whole-program tests (see docs/testing.md).
import os
import lit.formats

config.name = "dlm"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".dlm", ".dlmir", ".test", ".repl"]
config.excludes = ["Inputs", "unit", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "twins"]
config.test_source_root = os.path.dirname(__file__)

site = os.environ.get("DLM_LIT_SITE")
if site is None:
    build_dir = lit_config.params.get("build_dir", os.path.join(config.test_source_root, "..", "build"))
    site = os.path.join(build_dir, "tests", "lit.site.cfg.py")
exec(open(site).read())

config.test_exec_root = os.path.join(config.dlm_build_dir, "tests")
# The JIT's on-disk object cache (docs/codegen.md) lives in the build tree, never in $HOME.
config.environment["DLM_CACHE_DIR"] = os.path.join(config.test_exec_root, "dlm-cache")
bin_dir = os.path.join(config.dlm_build_dir, "bin")
# Never colour, never read the user's history: tests see what a pipe sees.
config.environment["NO_COLOR"] = "1"
config.environment["DLM_HISTORY"] = ""
config.environment["DLM_STDLIB"] = os.path.join(config.dlm_source_dir, "stdlib")
# Every module the JIT emits goes through LLVM's verifier (without it only AOT modules are:
# docs/codegen.md "Error exits").
config.environment["DLM_VERIFY_IR"] = "1"
# Sanitizer builds: third-party leaks that are not dlm's (libedit's history) are suppressed.
config.environment["LSAN_OPTIONS"] = ":".join(
    filter(None, ["suppressions=" + os.path.join(config.dlm_source_dir, "tests", "lsan.supp"),
                  os.environ.get("LSAN_OPTIONS", "")]))
# --param num_threads=N: the graph executor's and the kernels' threads (make test-tsan gives 4).
if lit_config.params.get("num_threads"):
    config.environment["DLM_NUM_THREADS"] = lit_config.params["num_threads"]
config.environment["PATH"] = os.pathsep.join([bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])

# `not CMD` fails when CMD crashes (a signal: a sanitizer's abort, dlm-diff's SIGABRT on a
# disagreement). lit's internal shell only inverts the exit status, so a crash passed as the
# expected failure; LLVM's `not` fails on one unless given --crash. Every command word `not`
# (not part of a longer word or option: --implicit-check-not=, does-not-exist) is that binary.
config.substitutions.append((r"(?<![\w.=/-])not(?= )", os.path.join(config.llvm_tools_dir, "not")))

for tool in ["dlmc", "dlm-opt", "dlm"]:
    config.substitutions.append(("%" + tool + " ", os.path.join(bin_dir, tool) + " "))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%src", config.dlm_source_dir))
config.substitutions.append(("%bin", bin_dir))
if config.dlm_have_cuda:
    config.available_features.add("cuda")
# ptxas (CUDA toolkit) assembles the PTX of --emit=ptx for sm_90 (tests/gpu/ptxas.test).
import shutil
ptxas = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
# Open MPI's launcher runs the tests of tests/dist at 2 and 4 ranks on loopback (docs/dist.md):
# %mpirun is mpirun with what this machine needs (as root --allow-run-as-root; fewer cores than
# ranks --oversubscribe), its process binding off so ranks of parallel tests do not share a core.
mpirun = shutil.which("mpirun")
if mpirun:
    config.available_features.add("mpi")
    root = ["--allow-run-as-root"] if os.getuid() == 0 else []
    config.substitutions.append(("%mpirun", " ".join([mpirun] + root + ["--oversubscribe", "--bind-to", "none"])))
# AOT executables link a runtime built for baseline x86-64 (compiler/codegen/CMakeLists.txt).
if os.path.exists(os.path.join(config.dlm_build_dir, "lib", "libdlm_runtime_portable.a")):
    config.available_features.add("portable-aot")
# The CPU executes FMA instructions: AOT executables then run their FMA copies (docs/codegen.md
# "AOT"), and DLM_AOT_PORTABLE=1 makes them compute differently.
if any("fma" in line.split() for line in open("/proc/cpuinfo") if line.startswith("flags")):
    config.available_features.add("fma")
