//===- compiler/driver/Driver.cpp - What every tool does with an input ----===//
#include "compiler/driver/Driver.h"

#include "compiler/codegen/Codegen.h"
#include "compiler/engine/Engine.h"
#include "runtime/Dist.h"
#include "runtime/Threads.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <unistd.h>

namespace dlm {

namespace {

/// Ends the process with `status` now, when nothing user-visible depends on the normal exit:
/// every byte written to stdout and stderr (C stdio and LLVM's streams) flushed without error.
/// Skipped are only destructors: the compilation's AST, SSA and graph, the JIT's leftovers, the
/// static objects of LLVM (thousands of cl::opt), ANTLR's ATNs and the runtime. Files the
/// program writes (checkpoints, the object cache) are closed by the operation that writes them.
/// Returns (the caller exits the normal way) after a write error, which raw_fd_ostream reports
/// at exit, and under the sanitizers, whose leak check runs at exit.
void exitIfFlushed(int status) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  (void)status;
  return;
#else
  llvm::outs().flush();
  llvm::errs().flush();
  if (std::fflush(nullptr) != 0 || llvm::outs().has_error() || llvm::errs().has_error())
    return;
  _exit(status);
#endif
}

} // namespace

int compileAndThen(llvm::StringRef tool, const CompilerOptions &options,
                   llvm::function_ref<int(Compilation &)> then) {
  return runGuarded(tool, options.input, [&]() -> int {
    DiagnosticEngine diag(llvm::errs(), tool.str());
    diag.setColorMode(options.color);
    diag.setVerifyMode(options.verifyDiagnostics);
    if (!options.verifyDiagnostics)
      diag.setErrorLimit(kErrorLimit);
    Compilation compilation(options, diag);
    bool ok = compilation.loadInput() && compilation.run(llvm::outs());
    llvm::outs().flush();
    int status = ok ? ExitSuccess : ExitUserError;
    if (ok && then)
      status = then(compilation);
    if (options.verifyDiagnostics) {
      status = diag.verify() ? ExitSuccess : ExitUserError;
    } else {
      diag.printSummary();
    }
    if (options.exitWhenDone) {
      // One rank of a launched run ends the MPI session: finalised, or every rank stopped when
      // this one failed (runtime/Dist.h). A plain run returns at once.
      llvm::outs().flush();
      llvm::errs().flush();
      status = dlm_dist_finish(status);
      exitIfFlushed(status);
    }
    return status;
  });
}

std::optional<Engine> parseEngine(llvm::StringRef name) {
  if (name == "jit")
    return Engine::JIT;
  if (name == "graph")
    return Engine::Graph;
  return std::nullopt;
}

JitRunner::JitRunner() : session(std::make_unique<codegen::JitSession>()) {}
JitRunner::~JitRunner() = default;

int JitRunner::run(Compilation &compilation) {
  const graph::Graph *graph = compilation.getGraph();
  if (!graph) {
    compilation.getDiagnostics().error("internal error: no lowered graph to run");
    return ExitInternal;
  }
  codegen::CodegenOptions options;
  options.optLevel = compilation.getOptions().optLevel;
  return session->run(*graph, compilation.getDiagnostics(), options);
}

int executeProgram(Compilation &compilation, const RunOptions &options) {
  const graph::Graph *graph = compilation.getGraph();
  if (!graph) {
    compilation.getDiagnostics().error("internal error: no lowered graph to run");
    return ExitInternal;
  }
  // Flush what the compiler printed before the program's own output starts.
  llvm::outs().flush();
  int status;
  if (options.engine == Engine::Graph) {
    setCrashContext("running");
    status = engine::runGraph(*graph, compilation.getDiagnostics());
  } else {
    setCrashContext("compiling and running");
    codegen::CodegenOptions codegenOptions;
    codegenOptions.debugCrashJitWorker = compilation.getOptions().debugCrashJitWorker;
    codegenOptions.optLevel = compilation.getOptions().optLevel;
    codegenOptions.timePasses = compilation.getOptions().timePasses;
    codegenOptions.objectCache = options.objectCache;
    status = codegen::runJit(*graph, compilation.getDiagnostics(), codegenOptions);
  }
  // Who still holds a thread after the run (OpenBLAS's workers start only for a product it
  // threads: runtime/Threads.h).
  if (compilation.getOptions().timePasses)
    llvm::errs() << "threads: " << rt::processThreads()
                 << " in the process after the run, OpenBLAS set to " << rt::openBlasThreads()
                 << " (policy " << rt::blasThreads() << ")\n";
  return status;
}

int compileAheadOfTime(Compilation &compilation, const AotOptions &options, llvm::StringRef path,
                       llvm::StringRef toolPath) {
  const CompilerOptions &compilerOptions = compilation.getOptions();
  codegen::CodegenOptions codegenOptions;
  codegenOptions.optLevel = compilerOptions.optLevel;
  codegenOptions.timePasses = compilerOptions.timePasses;
  codegenOptions.aotCpu = options.aotCpu;
  DiagnosticEngine &diags = compilation.getDiagnostics();
  if (options.objectOnly)
    return codegen::emitObject(*compilation.getGraph(), diags, codegenOptions, path);
  return codegen::buildExecutable(*compilation.getGraph(), diags, codegenOptions, path, toolPath);
}

} // namespace dlm
