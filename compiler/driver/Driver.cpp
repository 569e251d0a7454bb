//===- compiler/driver/Driver.cpp - What every tool does with an input ----===//
#include "compiler/driver/Driver.h"

#include "compiler/codegen/Codegen.h"
#include "compiler/engine/Engine.h"
#include "runtime/Threads.h"

#include "llvm/Support/raw_ostream.h"

namespace dlm {

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
    if (options.verifyDiagnostics)
      return diag.verify() ? ExitSuccess : ExitUserError;
    diag.printSummary();
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
    status = engine::runGraph(*graph, compilation.getDiagnostics());
  } else {
    codegen::CodegenOptions codegenOptions;
    codegenOptions.optLevel = compilation.getOptions().optLevel;
    codegenOptions.timePasses = compilation.getOptions().timePasses;
    codegenOptions.objectCache = options.objectCache;
    status = codegen::runJit(*graph, compilation.getDiagnostics(), codegenOptions);
  }
  // Who still holds a thread after the run (OpenBLAS's workers start only for a product it
  // threads: runtime/Threads.h).
  if (compilation.getOptions().timePasses)
    llvm::errs() << "threads: " << rt::processThreads() << " in the process after the run, OpenBLAS set to "
                 << rt::openBlasThreads() << " (policy " << rt::blasThreads() << ")\n";
  return status;
}

} // namespace dlm
