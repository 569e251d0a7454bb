//===- runtime/exec/Executor.h - TensorFlow-style dataflow graph executor --===//
//
// Runs a finalized ExecGraph the way TensorFlow's executor does (docs/executor.md):
//
//  - Every node of every loop iteration has a pending count of inputs still to arrive; nodes
//    whose count reaches zero are ready. The run starts from the nodes without inputs.
//  - Cheap ready nodes run inline on the thread that made them ready; expensive ones go to a
//    shared queue that idle threads (the run's calling thread and pool workers) drain.
//  - A loop runs in a frame instance (one per entry into the loop) whose iterations each hold
//    their own input slots and pending counts, so up to `parallelIterations` iterations run at
//    once. Iterations and frames are freed as soon as they are done.
//  - Switch sends a dead token down its untaken side; a node with a dead input is dead (it does
//    not run and its outputs are dead) except Merge, which fires on its first live input and is
//    dead only when all its inputs are. Dead tokens stop at NextIteration.
//  - Each consumer holds its own reference to an input value, dropped as soon as it has run, so
//    a tensor is freed right after its last use.
//  - The first run-time error (a kernel error, a failed assert, an index out of range) stops the
//    run: no new node starts, running ones finish, and the run returns the error with the
//    failing node's source location.
//  - A run that ends without having run every node it needed (a malformed graph: a loop whose
//    values died mid-run) is an internal error naming the node, never a silent success.
//
// Results never depend on thread interleaving: kernels are deterministic and side effects are
// ordered by the graph's control edges.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_EXEC_EXECUTOR_H
#define DLM_RUNTIME_EXEC_EXECUTOR_H

#include "runtime/exec/ExecGraph.h"
#include "runtime/exec/ThreadPool.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dlm::rt {

/// What one run did, and how much state it held at most: the executor's memory is bounded by
/// the live frames, iterations and values, so tests assert on these rather than on time.
struct ExecStats {
  int64_t nodesRun = 0;           ///< Node executions, live or dead, over all iterations.
  int64_t deadNodes = 0;          ///< Of those, executions that only forwarded dead tokens.
  int64_t framesCreated = 0;      ///< Loop frame instances (the root frame is not counted).
  int64_t iterationsStarted = 0;  ///< Loop iterations, over all frame instances.
  int64_t peakLiveFrames = 0;     ///< Most loop frame instances alive at once.
  int64_t peakLiveIterations = 0; ///< Most loop iterations alive at once, all frames together.
  int64_t peakLiveValues = 0;     ///< Most values (tensors, strings) held by the executor at once.
  int64_t liveFrames = 0;         ///< Still alive when the run ended (0 after a complete run).
  int64_t liveIterations = 0;
  int64_t liveValues = 0;
};

struct RunOptions {
  /// Threads that may run nodes, the calling thread included; 0 = ThreadPool::defaultThreadCount().
  /// 1 runs every node on the calling thread.
  int numThreads = 0;
  /// Where the other threads come from; null = ThreadPool::shared().
  ThreadPool *pool = nullptr;
  /// Root-frame outputs to hand back in RunResult::fetched.
  std::vector<ExecPort> fetches;
  /// What the graph's `arg` nodes output, by their argIndex (an entry graph's arguments).
  std::vector<Value> feeds;
};

struct RunResult {
  Status status; ///< ok, or the first run-time error's message.
  ExecNodeId errorNode = -1;
  ExecLocation errorLoc; ///< Location of the failing node.
  /// The error is the executor's own, not the program's: the run ended with a node that never
  /// ran although it was needed (a loop that ran live left without its Exit firing, a frame
  /// still live, a root-frame node still waiting for inputs). A compiler bug; `dlm run` exits
  /// with status 70 (docs/executor.md "Errors").
  bool internal = false;
  /// One per fetch: the value, or a null Value when the fetched output was dead.
  std::vector<Value> fetched;
  std::vector<bool> fetchedLive;
  ExecStats stats;

  bool ok() const { return status.ok(); }
  /// "file:line:col: error: message" (the location part omitted when unknown).
  std::string errorString() const;
};

/// Runs `graph` (which must be finalized) to completion or to its first error. Thread-safe: one
/// graph may be run by several threads at once, and a kernel may itself call runGraph.
RunResult runGraph(const ExecGraph &graph, const RunOptions &options = {});

} // namespace dlm::rt

#endif // DLM_RUNTIME_EXEC_EXECUTOR_H
