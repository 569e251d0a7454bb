//===- compiler/driver/Driver.h - What every tool does with an input ------===//
//
// The common skeleton of dlmc and `dlm run`: a DiagnosticEngine configured from the options, a
// Compilation, the guarded large-stack thread, the "N errors generated" summary or the
// verify-mode verdict, and the exit status. The execution seam is here too: executeProgram()
// is where the graph executor and the JIT plug in for `dlm run`, JitRunner where the REPL
// runs its inputs, and compileAheadOfTime() where `dlmc -o` reaches code generation; the tools
// reach the compiler's stages only through this library (scripts/check-layering.py).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_DRIVER_DRIVER_H
#define DLM_COMPILER_DRIVER_DRIVER_H

#include "compiler/driver/Compilation.h"
#include "compiler/driver/CrashGuard.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dlm {

namespace codegen {
class JitSession;
} // namespace codegen

/// After this many errors the rest are counted but not printed.
constexpr unsigned kErrorLimit = 50;

/// Compiles `options.input` (printing the --emit output to stdout) and, if that succeeded,
/// calls `then` (execution) and returns its status. Returns an ExitCode: 0 ok, 1 errors in
/// the program (or a failed verify), 70 a compiler crash.
int compileAndThen(llvm::StringRef tool, const CompilerOptions &options,
                   llvm::function_ref<int(Compilation &)> then = nullptr);

/// The execution engines of `dlm run`.
enum class Engine : uint8_t { JIT, Graph };

/// "jit" or "graph"; nullopt for anything else.
std::optional<Engine> parseEngine(llvm::StringRef name);

struct RunOptions {
  /// The JIT (docs/codegen.md); --engine=graph picks the graph executor (docs/executor.md).
  Engine engine = Engine::JIT;
  /// The JIT's on-disk object cache (docs/codegen.md "On-disk object cache"); --no-cache: off.
  bool objectCache = true;
  std::vector<std::string> programArgs; ///< what follows FILE on the command line
};

/// Runs compiled programs one after another in one JIT session (the REPL: each input is a
/// program of its own, and one whose graph is identical to an earlier one's reuses its code;
/// docs/codegen.md "JIT").
class JitRunner {
public:
  JitRunner();
  ~JitRunner();
  JitRunner(const JitRunner &) = delete;
  JitRunner &operator=(const JitRunner &) = delete;

  /// Runs the compilation's graph at its -O level: 0, 1 after a run-time error (reported at
  /// its .dlm location), 70 after an internal error.
  int run(Compilation &compilation);

private:
  std::unique_ptr<codegen::JitSession> session;
};

/// Runs a successfully compiled program on the chosen engine (the JIT, compiler/codegen, or the
/// graph executor, compiler/engine) and returns its exit status: 0, 1 after a run-time error
/// (reported at its .dlm location), 70 after an internal error.
int executeProgram(Compilation &compilation, const RunOptions &options);

/// What `dlmc -o` and `-c` build from a program.
struct AotOptions {
  bool objectOnly = false;        ///< -c / --emit=obj: the object file, not an executable
  std::string aotCpu = "generic"; ///< --aot-cpu: any x86-64 (generic) or this machine's (native)
};

/// Compiles a successfully compiled program ahead of time into `path` (compiler/codegen): an
/// executable linked with the runtime library found beside the tool `toolPath` (argv[0]), or
/// an object file. Returns the exit status: 0, 1 after an error (reported), 70 internal.
int compileAheadOfTime(Compilation &compilation, const AotOptions &options, llvm::StringRef path,
                       llvm::StringRef toolPath);

} // namespace dlm

#endif // DLM_COMPILER_DRIVER_DRIVER_H
