//===- tests/executor/RunDlmir.cpp - Run a .dlmir graph on the executor ----===//
//
// Test tool `dlmir-run FILE.dlmir [--threads=N]`: parses and verifies a textual graph, then runs
// it through compiler/engine on the graph executor, so lit tests can pin the executor's
// behaviour on exact graphs (frames, dead tokens, errors) independently of the frontend.
// Exit status: that of `dlm run` (0 ok, 1 invalid input or run-time error, 70 internal error).
//
//===----------------------------------------------------------------------===//
#include "compiler/engine/Engine.h"
#include "compiler/ir/Dlmir.h"
#include "compiler/ir/Verifier.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

int main(int argc, char **argv) {
  std::string path;
  dlm::engine::EngineOptions options;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.consume_front("--threads=")) {
      if (arg.getAsInteger(10, options.numThreads) || options.numThreads < 1) {
        llvm::errs() << "dlmir-run: error: bad thread count '" << arg << "'\n";
        return 2;
      }
      continue;
    }
    path = arg.str();
  }
  if (path.empty()) {
    llvm::errs() << "usage: dlmir-run FILE.dlmir [--threads=N]\n";
    return 2;
  }
  dlm::DiagnosticEngine diags(llvm::errs(), "dlmir-run");
  std::optional<unsigned> buffer = diags.addFile(path);
  if (!buffer)
    return 1;
  std::optional<dlm::graph::Graph> graph = dlm::graph::parseGraph(diags, *buffer);
  if (!graph || !dlm::graph::verifyGraph(*graph, diags))
    return 1;
  return dlm::engine::runGraph(*graph, diags, options);
}
