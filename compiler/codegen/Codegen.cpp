//===- compiler/codegen/Codegen.cpp - --emit=llvm -------------------------===//
//
// The printed module of `dlmc --emit=llvm`: emitted and optimised for the host at the requested
// level. The JIT's entry points are in JitSession.cpp, the AOT path's in Aot.cpp; all report
// their failures through reportFailure (CodegenError.h).
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Codegen.h"

#include "compiler/codegen/CodegenError.h"
#include "compiler/codegen/Pipeline.h"
#include "compiler/codegen/Targets.h"

namespace dlm::codegen {

namespace {

llvm::Error printModule(const graph::Graph &graph, const CodegenOptions &options,
                        std::function<std::string(const graph::Location &)> sourceLine,
                        llvm::raw_ostream &os) {
  initializeLLVM();
  auto tm = hostMachine(options.optLevel).createTargetMachine();
  if (!tm)
    return tm.takeError();
  llvm::LLVMContext ctx;
  auto module = buildModule(graph, ctx, **tm, false, std::move(sourceLine));
  if (!module)
    return module.takeError();
  optimize(**module, **tm, options.optLevel);
  (*module)->print(os, nullptr);
  return llvm::Error::success();
}

} // namespace

int printLLVM(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options,
              llvm::raw_ostream &os) {
  return reportFailure(printModule(graph, options, sourceLines(diags), os), diags);
}

} // namespace dlm::codegen
