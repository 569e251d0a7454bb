//===- tests/codegen/DlmirJit.cpp - Run or compile a .dlmir graph with codegen ===//
//
// Test tool `dlmir-jit FILE.dlmir|FILE.dlm [-O0..-O3] [--emit=llvm] [-o EXE] [--engine=graph]`:
// reads a textual graph (parsed and verified) or a program (parsed, analysed and lowered), then
// runs it on the JIT (default) or the graph executor, prints its LLVM IR, or builds an AOT
// executable, so lit tests and benchmarks pin codegen on exact graphs (the same ones
// tests/executor runs on the graph executor) independently of the driver. Exit status as
// `dlm run`.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Codegen.h"
#include "compiler/engine/Engine.h"
#include "compiler/frontend/Parse.h"
#include "compiler/ir/Dlmir.h"
#include "compiler/ir/Verifier.h"
#include "compiler/lower/Lower.h"
#include "compiler/sema/Sema.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

int main(int argc, char **argv) {
  std::string path, output;
  bool emitLLVM = false, graphEngine = false;
  dlm::codegen::CodegenOptions options;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.size() == 3 && arg.starts_with("-O") && arg[2] >= '0' && arg[2] <= '3') {
      options.optLevel = arg[2] - '0';
    } else if (arg == "--emit=llvm") {
      emitLLVM = true;
    } else if (arg == "--engine=graph") {
      graphEngine = true;
    } else if (arg == "--time-passes") {
      options.timePasses = true;
    } else if (arg == "-o" && i + 1 < argc) {
      output = argv[++i];
    } else {
      path = arg.str();
    }
  }
  if (path.empty()) {
    llvm::errs() << "usage: dlmir-jit FILE.dlmir [-O0..-O3] [--emit=llvm] [-o EXE]\n";
    return 2;
  }
  dlm::DiagnosticEngine diags(llvm::errs(), "dlmir-jit");
  std::optional<unsigned> buffer = diags.addFile(path);
  if (!buffer)
    return 1;
  std::optional<dlm::graph::Graph> graph;
  if (llvm::StringRef(path).ends_with(".dlm")) {
    std::unique_ptr<dlm::Module> module = dlm::parseBuffer(diags, *buffer);
    if (!module)
      return 1;
    dlm::SemaOptions sema;
    sema.stdlibDir = dlm::findStdlibDir(argv[0]);
    sema.parseFile = [&](llvm::StringRef file, llvm::SMRange at) {
      return dlm::parseFile(diags, file, at);
    };
    std::unique_ptr<dlm::ssa::Program> program = dlm::analyze(*module, diags, sema);
    if (!program)
      return 1;
    graph = dlm::lower::lowerToGraph(*program, diags);
    if (!graph)
      return 1;
  } else {
    graph = dlm::graph::parseGraph(diags, *buffer);
    if (!graph || !dlm::graph::verifyGraph(*graph, diags))
      return 1;
  }
  if (graphEngine)
    return dlm::engine::runGraph(*graph, diags);
  if (emitLLVM)
    return dlm::codegen::printLLVM(*graph, diags, options, llvm::outs());
  if (!output.empty())
    return dlm::codegen::buildExecutable(*graph, diags, options, output, argv[0]);
  return dlm::codegen::runJit(*graph, diags, options);
}
