//===- compiler/opt/Pipeline.h - The pass registry and the pass manager ---===//
//
// Looks passes up by name (the Passes.def table), builds the pipeline for an optimisation level
// and runs a list of passes with the instrumentation the tools expose: --verify-each,
// --print-after-all, --print-after=NAME and --stats (docs/opt.md).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_OPT_PIPELINE_H
#define DLM_COMPILER_OPT_PIPELINE_H

#include "compiler/opt/Pass.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace dlm::opt {

/// Every registered pass, in Passes.def order.
llvm::ArrayRef<PassInfo> allPasses();
/// The pass called `name`, or null.
const PassInfo *findPass(llvm::StringRef name);
/// "  name  help" lines for --help.
void printPassList(llvm::raw_ostream &os);

/// The passes `-O<level>` runs, in order (level 0: verify only).
std::vector<const PassInfo *> pipelineForLevel(unsigned level);

struct RunOptions {
  bool verifyEach = false;                  ///< run the verifier after every pass
  bool printAfterAll = false;               ///< print the graph after every pass
  std::string printAfter;                   ///< print the graph after each run of this pass
  bool printLocs = false;                   ///< locations in those printouts
  llvm::raw_ostream *printStream = nullptr; ///< where printouts go (stderr when null)
};

/// Runs `passes` in order on `g`. Returns false when a pass fails or, with verifyEach, leaves
/// an invalid graph (reported to ctx.diag naming the pass).
bool runPasses(graph::Graph &g, llvm::ArrayRef<const PassInfo *> passes, PassContext &ctx,
               const RunOptions &options = {});

/// Prints `--stats` output: one line per pass and counter, in name order.
void printStats(const PassStats &stats, llvm::raw_ostream &os);

} // namespace dlm::opt

#endif // DLM_COMPILER_OPT_PIPELINE_H
