//===- compiler/codegen/Codegen.h - Graph IR -> native code through LLVM --===//
//
// The JIT engine (`dlm run`, the default) and the AOT path (`dlmc FILE.dlm -o EXE`). A lowered
// graph is structured back into loops and branches (Structure.h), emitted as one LLVM function
// `dlm_main` that keeps scalars in registers and calls the runtime's C ABI (runtime/CApi.h) for
// tensor kernels, optimised with LLVM's new pass manager at the requested -O level, then either
// run in an ORC LLJIT session or written as an object file and linked with the static runtime.
// docs/codegen.md describes the structuring, the calling convention and the error exits.
//
// No LLVM IR type appears in this header: the driver hands in a graph and gets an exit status.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_CODEGEN_CODEGEN_H
#define DLM_COMPILER_CODEGEN_CODEGEN_H

#include "compiler/ir/Graph.h"
#include "compiler/support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include "runtime/CApi.h"

#include <memory>
#include <optional>
#include <string>

namespace dlm::codegen {

struct CodegenOptions {
  unsigned optLevel = 2; ///< -O0 .. -O3, mapped to LLVM's default pipelines
  /// Print the time of each codegen stage (emit, optimise, JIT compile, run) to stderr.
  bool timePasses = false;
  /// AOT only: the CPU the object file targets. "generic" (x86-64 baseline, runs on any
  /// x86-64 machine) or "native" (this machine's CPU and features, like the JIT).
  std::string aotCpu = "generic";
  /// JIT only: look the compiled object up in the on-disk object cache and store it there on a
  /// miss (`dlm run`; off with --no-cache). The cache's directory comes from the environment
  /// (ObjectCache.h); the REPL does not use it.
  bool objectCache = false;
  /// Hidden, for tests (`--debug-crash=jit-worker`): the JIT's second compile thread crashes
  /// on purpose, to show that such a crash is an internal error (exit status 70).
  bool debugCrashJitWorker = false;
  /// The graph is an entry graph (`arg`/`retval` nodes, docs/embedding.md); JitSession::
  /// compileEntry sets it.
  bool entry = false;
};

/// The compiled functions of an entry graph (JitSession::compileEntry). `init` runs once before
/// the first call and `fini` once after the last; `main` may run on several threads at once.
/// `main(args, results)` reads argument i from args[i] (borrowed; a scalar as a 0-d tensor) and
/// stores a new reference for result i in results[i]; it returns 0, or 1 after a run-time error
/// (the runtime's last error on this thread: reportLastError), having released everything it
/// held but the results it already stored.
struct EntryFunctions {
  using Main = int (*)(dlm_tensor *const *args, dlm_tensor **results);
  Main main = nullptr;
  int (*init)() = nullptr;
  void (*fini)() = nullptr;
};

/// Exit statuses of the engine (the tools' conventions).
constexpr int kExitOk = 0;
constexpr int kExitRuntimeError = 1;
constexpr int kExitInternal = 70;

/// Prints the LLVM module generated for `graph` (optimised at options.optLevel, for the host).
/// Returns an exit status; an internal error is reported to `diags`.
int printLLVM(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options,
              llvm::raw_ostream &os);

/// A JIT session: one ORC LLJIT for the host CPU, reused across programs (the REPL runs
/// every input through one). Each program is its own JITDylib, compiled whole before it runs
/// (large programs the cheap way: docs/codegen.md "Large programs"). Compiled entries are cached by
/// a hash of the graph's text (its ops, attributes, types with static shapes, locations) and the -O
/// level, so running an identical graph again skips codegen. Lowering inlines every call, so the
/// graph is the unit of caching. With CodegenOptions::objectCache, compiled objects are also kept
/// on disk across processes, keyed by the emitted module (docs/codegen.md "On-disk object cache").
class JitSession {
public:
  JitSession();
  ~JitSession();
  JitSession(const JitSession &) = delete;
  JitSession &operator=(const JitSession &) = delete;

  /// Compiles (or finds in the cache) and runs `graph`. Returns 0, 1 after a run-time error
  /// (reported at its .dlm location), or 70 after an internal error (reported).
  int run(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options);

  /// Compiles the entry graph `graph` into a new JITDylib of the session, which keeps it as long
  /// as the session lives. nullopt after reporting an internal error. Not thread-safe: one
  /// compile at a time per session; the functions may be called from any thread.
  std::optional<EntryFunctions> compileEntry(const graph::Graph &graph, DiagnosticEngine &diags,
                                             CodegenOptions options);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Reports the runtime's last error on this thread (a failed entry call or program run) through
/// `diags`, at the location its failure site recorded, with its notes.
void reportLastError(DiagnosticEngine &diags);

/// Runs `graph` on a fresh JIT session (what `dlm run --engine=jit` does).
int runJit(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options);

/// Writes `graph` as an object file for the AOT target (it defines `main`).
int emitObject(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options,
               llvm::StringRef objectPath);

/// Builds an executable: the object file linked with the static runtime library, OpenBLAS,
/// zlib and pthread by the system's C++ compiler driver. `toolPath` is the running dlmc
/// (argv[0]); the runtime library is found in `<dir of dlmc>/../lib/`: for aotCpu "generic"
/// the portable build `libdlm_runtime_portable.a` when this build has one (its kernels target
/// baseline x86-64), else `libdlm_runtime.a` ($DLM_RUNTIME_LIB overrides).
int buildExecutable(const graph::Graph &graph, DiagnosticEngine &diags,
                    const CodegenOptions &options, llvm::StringRef exePath,
                    llvm::StringRef toolPath);

/// Writes the entry graph `graph` as one export of an AOT library (`dlmc --emit=lib`,
/// docs/embedding.md): an object file for the AOT target defining `<symbolPrefix>_main` and
/// `<symbolPrefix>_init` (the EntryFunctions' convention) and, for a generic x86-64 target,
/// their FMA copies `<symbolPrefix>_main_fma` and `_init_fma` (runtime/AotLibrary.h); the rest
/// is internal. Returns an exit status (errors reported to `diags`).
int emitEntryObject(const graph::Graph &graph, DiagnosticEngine &diags,
                    const CodegenOptions &options, llvm::StringRef symbolPrefix,
                    llvm::StringRef objectPath);

/// Builds the AOT library `libPath` from the exports' object files and the C file `wrapperC`
/// (the typed functions, compiled with the system's `cc`): a shared library linked with the
/// static runtime (found as for buildExecutable), or for a `.a` path a static archive of the
/// objects and the runtime's. Returns an exit status (errors reported to `diags`).
int buildLibrary(const std::vector<std::string> &objects, llvm::StringRef wrapperC,
                 DiagnosticEngine &diags, const CodegenOptions &options, llvm::StringRef libPath,
                 llvm::StringRef toolPath);

/// What a program linking a static AOT library adds after it: the runtime's own libraries
/// (OpenBLAS, zlib, pthread, libm), as this build found them.
std::vector<std::string> libraryLinkArguments();

/// Whether AOT code for `options` has FMA copies of its functions, chosen at start-up: a
/// generic x86-64 target (docs/codegen.md "AOT").
bool hasFmaCopies(const CodegenOptions &options);

} // namespace dlm::codegen

#endif // DLM_COMPILER_CODEGEN_CODEGEN_H
