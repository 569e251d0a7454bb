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

} // namespace dlm::engine

#endif // DLM_COMPILER_ENGINE_ENGINE_H
