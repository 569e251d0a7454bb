//===- compiler/driver/Driver.cpp - What every tool does with an input ----===//
#include "compiler/driver/Driver.h"

#include "compiler/codegen/Codegen.h"
#include "compiler/engine/Engine.h"

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
  if (options.engine == Engine::Graph) {
    const graph::Graph *graph = compilation.getGraph();
    if (!graph) {
      compilation.getDiagnostics().error("internal error: no lowered graph to execute");
      return ExitInternal;
    }
    // Flush what the compiler printed before the program's own output starts.
    llvm::outs().flush();
    return engine::runGraph(*graph, compilation.getDiagnostics());
  }
  if (options.engine == Engine::JIT) {
    const graph::Graph *graph = compilation.getGraph();
    if (!graph) {
      compilation.getDiagnostics().error("internal error: no lowered graph to compile");
      return ExitInternal;
    }
    llvm::outs().flush();
    codegen::CodegenOptions codegenOptions;
    codegenOptions.optLevel = compilation.getOptions().optLevel;
    codegenOptions.timePasses = compilation.getOptions().timePasses;
    return codegen::runJit(*graph, compilation.getDiagnostics(), codegenOptions);
  }
  const Module *module = compilation.getModule();
  size_t functions = module->getFunctions().size();
  size_t statements = module->getBody().size() - functions - module->getImports().size();
  llvm::errs() << "dlm: '" << module->getName() << "' compiled: " << functions << " function"
               << (functions == 1 ? "" : "s") << ", " << statements << " top-level statement"
               << (statements == 1 ? "" : "s") << "\n"
               << "dlm: note: no execution engine is in this build yet ("
               << (options.engine == Engine::JIT ? "jit" : "graph") << " requested); nothing was run\n";
  return ExitSuccess;
}

} // namespace dlm
