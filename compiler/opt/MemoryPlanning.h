//===- compiler/opt/MemoryPlanning.h - Liveness and the planned arena ------===//
//
// The analysis behind the `plan-memory` pass (MemoryPlanning.cpp has the algorithm), for passes
// that weigh memory: `remat` plans before and after recomputing values to report, and to stay
// under, the planned peak.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_OPT_MEMORYPLANNING_H
#define DLM_COMPILER_OPT_MEMORYPLANNING_H

#include "compiler/ir/Graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace dlm::opt {

struct MemoryPlan {
  int64_t unplannedBytes = 0; ///< every tensor in its own buffer
  int64_t arenaBytes = 0;     ///< the buffers the plan creates: the planned peak
  int64_t inPlace = 0, reused = 0, unknownSize = 0;
  /// Of inPlace: results accumulated into an accumulatorOperand (a loop-carried one included).
  int64_t accumulated = 0;
  /// Autodiff stacks sized from their loops' trip counts (entry bytes times pushes), part of
  /// the arena; a stack whose pushes cannot be counted is an unknown-size value.
  int64_t stackBytes = 0, stacksSized = 0;
  std::vector<graph::NodeId> order;          ///< the schedule (a topological order)
  std::vector<size_t> pos;                   ///< by node id: its place in `order`
  std::map<graph::ValueRef, size_t> lastUse; ///< schedule position of a value's last reader
};

/// How many times the body of loop frame `f` runs, when the loop counts an integer up from a
/// constant to a constant limit by a constant step (`while i < N` after constant folding,
/// `for i in range(N)`); nullopt otherwise.
std::optional<int64_t> tripCount(const graph::Graph &g, graph::FrameId f);

/// Plans `g`'s memory; nullopt when the graph has a cycle other than the loop back edges.
std::optional<MemoryPlan> planMemory(const graph::Graph &g);

} // namespace dlm::opt

#endif // DLM_COMPILER_OPT_MEMORYPLANNING_H
