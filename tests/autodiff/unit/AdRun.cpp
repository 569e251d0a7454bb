//===- tests/autodiff/unit/AdRun.cpp - dlm-ad: the autodiff test driver ----===//
//
// Runs a .dlm file through parse, sema, lowering (which differentiates every grad) and then
// prints the graph (`--emit=grad`, what `dlmc --emit=grad` prints) or runs it on the graph
// executor (`run`, like `dlm run --engine=graph`). `--stack-stats` prints what the loop stacks
// held (runtime/StackStats.h) to stderr after the run, for the memory tests.
//
//   dlm-ad --emit=grad [--print-locs] FILE.dlm
//   dlm-ad run [--stack-stats] FILE.dlm
//
//===----------------------------------------------------------------------===//
#include "compiler/engine/Engine.h"
#include "compiler/frontend/Parse.h"
#include "compiler/ir/Dlmir.h"
#include "compiler/lower/Lower.h"
#include "compiler/sema/Sema.h"
#include "runtime/StackStats.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace dlm;

int main(int argc, char **argv) {
  bool emit = false, stats = false;
  graph::PrintOptions print;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--emit=grad")
      emit = print.printGradLocs = true;
    else if (a == "--print-locs")
      print.printLocs = true;
    else if (a == "--stack-stats")
      stats = true;
    else if (a != "run")
      path = a;
  }
  if (path.empty()) {
    llvm::errs() << "usage: dlm-ad (--emit=grad | run [--stack-stats]) FILE.dlm\n";
    return 2;
  }
  DiagnosticEngine diags(llvm::errs(), "dlm-ad");
  std::unique_ptr<Module> module = parseFile(diags, path);
  if (!module)
    return 1;
  SemaOptions options;
  options.stdlibDir = findStdlibDir(argv[0]);
  options.parseFile = [&](llvm::StringRef p, llvm::SMRange loc) {
    return parseFile(diags, p, loc);
  };
  std::unique_ptr<ssa::Program> program = analyze(*module, diags, options);
  if (!program || diags.hasErrors())
    return 1;
  std::optional<graph::Graph> g = lower::lowerToGraph(*program, diags);
  if (!g)
    return 1;
  if (emit) {
    graph::printGraph(*g, llvm::outs(), print);
    return 0;
  }
  rt::resetStackStats();
  int rc = engine::runGraph(*g, diags);
  llvm::outs().flush();
  if (stats) {
    rt::StackStats s = rt::stackStats();
    llvm::errs() << "stack pushes: " << s.pushes << "\nstack bytes pushed: " << s.bytesPushed
                 << "\npeak stack bytes: " << s.peakStackBytes
                 << "\npeak stack bytes reserved: " << s.peakReservedBytes << "\n";
  }
  return rc;
}
