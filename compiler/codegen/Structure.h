//===- compiler/codegen/Structure.h - Graph -> structured control flow ----===//
//
// Codegen cannot run a dataflow graph the way the executor does (dead tokens, frames, ready
// queues); it needs the program back as straight-line code, loops and branches. This analysis
// recovers that structure from the TensorFlow-style primitives that lowering (and autodiff)
// produce (docs/codegen.md "Structuring"):
//
//   - every frame is a loop: its constant Enters are invariants, each loop Merge(Enter,
//     NextIteration) is a loop-carried variable, the nodes that do not depend on the loop
//     Switch's true side form the header (the condition, run every iteration including the
//     last), the nodes that do form the body, and the Exits are read after the loop;
//   - every other Switch opens a branch: a value carries a *guard*, the chain of
//     (predicate, side) terms under which it is live, and a conditional Merge closes the
//     innermost term of its two inputs.
//
// Each region (the root frame or a loop frame) gets a schedule: its nodes and its child loops
// (as one item each) in a dependency order, each with its guard and, in a loop, whether it is in
// the body. Value-forwarding primitives (Switch, Enter, Identity, NextIteration, LoopCond) emit
// nothing: `resolve` maps their outputs to the value they forward. Anything else is rejected
// with a message (an internal error: lowering never produces it).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_CODEGEN_STRUCTURE_H
#define DLM_COMPILER_CODEGEN_STRUCTURE_H

#include "compiler/ir/Graph.h"

#include <optional>
#include <string>
#include <vector>

namespace dlm::codegen {

/// One condition of a guard: `pred` (a bool[] value) equals `side`.
struct GuardTerm {
  graph::ValueRef pred;
  bool side = false;
  friend bool operator==(const GuardTerm &, const GuardTerm &) = default;
};
/// The conditions under which a value is live, outermost first; empty = always (in its frame).
using Guard = std::vector<GuardTerm>;

/// What codegen does with a node.
enum class NodeRole : uint8_t {
  Compute,   ///< an op: its results get their own storage
  Forward,   ///< Switch, Enter, Identity, NextIteration, LoopCond: forwards its input 0
  LoopMerge, ///< a loop-carried variable: Merge(Enter, NextIteration)
  CondMerge, ///< joins the two sides of a branch
  Exit,      ///< a loop's result, read after the loop ends
};

/// One step of a region's schedule: a node of the region's frame, or a whole child loop.
struct Item {
  graph::NodeId node = 0;
  graph::FrameId loop = graph::kNoFrame; ///< set for a child loop
  bool isLoop() const { return loop != graph::kNoFrame; }
  bool body = false; ///< in a loop region: depends on the loop's Switch (runs only when it loops)
  Guard guard;
};

/// A frame as code: the root frame (straight-line) or a loop.
struct Region {
  graph::FrameId frame = graph::kRootFrame;
  std::vector<Item> items; ///< in emission order (header items and body items interleave)
  // Loops only:
  graph::ValueRef pred;                   ///< the LoopCond's operand
  std::vector<graph::NodeId> merges;      ///< loop-carried variables
  std::vector<graph::ValueRef> mergeInit; ///< each merge's initial value (the Enter's operand)
  std::vector<graph::ValueRef> mergeNext; ///< each merge's next value (NextIteration's operand)
  std::vector<graph::NodeId> exits;       ///< Exit nodes of this frame
  Guard guard;                            ///< the loop item's guard in the parent
  bool body = false;                      ///< the loop item is in the parent loop's body
  /// Compute/CondMerge nodes of this frame and Exits of child loops: storage owned by one
  /// iteration (the root region: by the whole program).
  std::vector<graph::NodeId> owned;
};

struct Structure {
  std::vector<NodeRole> roles;   ///< by NodeId
  std::vector<Region> regions;   ///< by FrameId
  std::vector<Guard> nodeGuards; ///< by NodeId: when the node runs
  /// For a CondMerge: the joined predicate, and which input is taken when it is true.
  std::vector<graph::ValueRef> mergePred;
  std::vector<uint32_t> mergeTrueInput;

  /// The value a forwarded output stands for (follows Forward nodes to a Compute, LoopMerge,
  /// CondMerge or Exit output).
  graph::ValueRef resolve(const graph::Graph &g, graph::ValueRef v) const;
};

/// A rejected graph: what is wrong and at which node.
struct StructureError {
  std::string message;
  graph::NodeId node = 0;
};

/// Structures `g`; on failure fills `error`.
std::optional<Structure> structureGraph(const graph::Graph &g, StructureError &error);

} // namespace dlm::codegen

#endif // DLM_COMPILER_CODEGEN_STRUCTURE_H
