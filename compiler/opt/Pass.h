//===- compiler/opt/Pass.h - The optimizer's pass interface ---------------===//
//
// Every graph pass (one per file in compiler/opt, docs/opt.md) has the same small interface: a
// name and `run(Graph&, PassContext&)`, answering Unchanged, Changed or Failed. Passes are listed
// once in Passes.def, which drives `--passes=`, `--help` and the pipelines (Pipeline.h).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_OPT_PASS_H
#define DLM_COMPILER_OPT_PASS_H

#include "compiler/ir/Graph.h"
#include "compiler/ir/Verifier.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dlm {
class DiagnosticEngine;
}

namespace dlm::opt {

enum class PassResult { Unchanged, Changed, Failed };

/// Counters a pass reports for `--stats`, by name ("nodes-removed", "peak-bytes"), per pass.
/// std::map: printed in a deterministic order.
class PassStats {
public:
  void add(const std::string &pass, const std::string &counter, int64_t amount) {
    counters[pass][counter] += amount;
  }
  void set(const std::string &pass, const std::string &counter, int64_t value) {
    counters[pass][counter] = value;
  }
  const std::map<std::string, std::map<std::string, int64_t>> &all() const { return counters; }
  bool empty() const { return counters.empty(); }

private:
  std::map<std::string, std::map<std::string, int64_t>> counters;
};

/// What every pass sees besides the graph.
struct PassContext {
  explicit PassContext(DiagnosticEngine &diag, graph::NodeLocator locate = nullptr)
      : diag(diag), locate(locate) {}

  DiagnosticEngine &diag;
  /// Where diagnostics about a node point (its line in a .dlmir file); may be null.
  graph::NodeLocator locate = nullptr;
  PassStats stats;
  /// The values the caller asks for (`dlm-opt --outputs=`): what `prune` keeps besides the
  /// side effects. Empty when the caller asked for none.
  std::vector<graph::ValueRef> outputs;
  /// `--remat-budget=BYTES`: the planned peak `remat` aims under; 0 = no budget given.
  int64_t rematBudget = 0;
  /// The device `placement` places for: "cpu", "cuda" or "fake" (runtime/Devices.h).
  std::string device = "cpu";
  /// `--placement-cost=off` clears it: `placement` then puts every op the device has a kernel
  /// for on it, however small (tests use it to partition small programs as much as possible).
  bool placementCost = true;
  /// The name of the pass now running (set by the pass manager; stats are filed under it).
  std::string current;

  void count(const std::string &counter, int64_t amount = 1) {
    stats.add(current, counter, amount);
  }
};

/// One registry entry (Passes.def).
struct PassInfo {
  const char *name;
  const char *help;
  PassResult (*run)(graph::Graph &, PassContext &);
};

// One entry point per pass file, declared from the registry table.
#define DLM_PASS(NAME, FN, HELP) PassResult FN(graph::Graph &g, PassContext &ctx);
#include "compiler/opt/Passes.def"

} // namespace dlm::opt

#endif // DLM_COMPILER_OPT_PASS_H
