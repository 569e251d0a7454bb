//===- compiler/engine/Engine.h - Running lowered graphs on the executor ---===//
//
// Where the compiler meets the runtime for `dlm run --engine=graph`: a lowered graph::Graph is
// copied into the runtime's executable form (rt::ExecGraph: kernels looked up by op name in the
// runtime's kernel table, attributes converted to rt::Attrs by compiler/ir/RuntimeAttrs.h, cost
// classes from the op registry, source locations kept), then run by the graph executor
// (runtime/exec, docs/executor.md).
// A run-time error comes back with the failing node's location and is reported through the
// DiagnosticEngine, so it prints like every other error:
//
//   prog.dlm:7:5: error: index 5 is out of range for axis 0 of size 3
//       y = x[i]
//           ^
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_ENGINE_ENGINE_H
#define DLM_COMPILER_ENGINE_ENGINE_H

#include "compiler/ir/Graph.h"
#include "compiler/support/Diagnostics.h"
#include "runtime/exec/Executor.h"

namespace dlm::engine {

struct EngineOptions {
  /// Threads for the executor, the calling thread included; 0 = one per core (DLM_NUM_THREADS
  /// overrides).
  int numThreads = 0;
};

/// Copies `graph` into `out` (empty) and finalizes it. Fails — an internal error, since lowering
/// verified the graph — when an op has no CPU kernel or the structure cannot be executed.
rt::Status convertGraph(const graph::Graph &graph, rt::ExecGraph &out);

/// Runs `graph` to completion. Returns the exit status of `dlm run`: 0 ok, 1 after a run-time
/// error (reported to `diags` at the failing node's location), 70 when the graph cannot be
/// executed (an internal error, reported too).
int runGraph(const graph::Graph &graph, DiagnosticEngine &diags, const EngineOptions &options = {});

/// Reports a failed run of `graph` to `diags` as runGraph does and returns its exit status (0
/// when the run succeeded).
int reportRunError(const graph::Graph &graph, const rt::RunResult &result, DiagnosticEngine &diags);

/// An entry graph on the executor (docs/embedding.md): its `arg` nodes output the run's
/// arguments, and each `retval` becomes an Identity whose value the run fetches. Immutable once
/// built: any number of threads may run it at once.
class EntryGraph {
public:
  /// Converts `graph`; fails (an internal error) as convertGraph does.
  rt::Status build(const graph::Graph &graph);
  /// Runs on `args` (argument i for `arg{index = i}`); RunResult::fetched holds result i at i
  /// (a value every successful run produces).
  rt::RunResult run(std::vector<rt::Value> args, const EngineOptions &options = {}) const;
  size_t numArgs = 0;
  size_t numResults() const { return fetches.size(); }

private:
  rt::ExecGraph exec;
  std::vector<rt::ExecPort> fetches;
};

} // namespace dlm::engine

#endif // DLM_COMPILER_ENGINE_ENGINE_H
