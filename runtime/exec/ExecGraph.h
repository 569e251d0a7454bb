//===- runtime/exec/ExecGraph.h - The executable form of a dataflow graph --===//
//
// The graph executor (Executor.h) runs an ExecGraph: the runtime's own, compiler-free copy of a
// lowered dataflow graph. Every node is either a kernel from the runtime's kernel table (looked up
// by its docs/ops.md name when the graph is finalized) or one of TensorFlow's control-flow
// primitives, which the executor implements itself:
//
//   Switch(data, pred)   -> (false_out, true_out)  only the side `pred` selects is live
//   Merge(x0, x1, ...)   -> (out, value_index)     fires on its first live input
//   Enter(x)             -> out                    x into a child frame (constant: every iteration)
//   Exit(x)              -> out                    x out of its frame into the parent frame
//   NextIteration(x)     -> out                    x into the next iteration of its frame
//   LoopCond(pred)       -> out                    the loop predicate
//   Identity(x)          -> out                    x (a pivot for control edges)
//   arg                  -> out                    the run's feed `argIndex` (RunOptions::feeds):
//                                                  an entry graph's argument (docs/embedding.md)
//
// Frames follow the compiler's convention (compiler/ir/Graph.h): a node's `frame` is the frame it
// belongs to; an Enter belongs to the child frame it enters (its input comes from the parent), an
// Exit to the frame it leaves. Frame 0 is the root frame.
//
// Building is two-phase: add frames, nodes and edges in any order (a NextIteration may feed a
// Merge added before it), then `finalize()` checks the structure and computes the static plan the
// executor runs from (edge lists, input-slot layout, initial pending counts). A finalized graph is
// immutable and may be run any number of times, concurrently.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_EXEC_EXECGRAPH_H
#define DLM_RUNTIME_EXEC_EXECGRAPH_H

#include "runtime/Kernel.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dlm::rt {

using ExecNodeId = int32_t;
using ExecFrameId = int32_t;

/// What a node does when it runs.
enum class ExecKind : uint8_t {
  Kernel,
  Switch,
  Merge,
  Enter,
  Exit,
  NextIteration,
  LoopCond,
  Identity,
  Arg
};

/// "Kernel" or the primitive's name ("Switch", ..., "arg").
const char *execKindName(ExecKind kind);
/// The control-flow primitive called `op`; ExecKind::Kernel for every other name.
ExecKind execKindOf(std::string_view op);

/// Where a node came from in the .dlm program; line 0 = unknown.
struct ExecLocation {
  std::string file;
  uint32_t line = 0;
  uint32_t col = 0;
  /// A gradient node's forward op ("sigmoid"), empty otherwise (docs/autodiff.md).
  std::string gradOf{};
  /// The compiler's id of the inlined call chain the position is in (0 = none): the executor
  /// only hands it back with the error, the compiler turns it into notes (docs/runtime.md).
  uint32_t inlinedAt = 0;
  /// "file:line:col", or "<unknown>" when line is 0.
  std::string str() const;
};

/// Output `port` of node `node`.
struct ExecPort {
  ExecNodeId node = 0;
  int32_t port = 0;
};

struct ExecFrame {
  std::string name;        ///< "" for the root frame.
  ExecFrameId parent = -1; ///< -1 for the root frame only.
  int32_t parallelIterations = 1;
};

struct ExecNode {
  ExecKind kind = ExecKind::Kernel;
  std::string op;               ///< docs/ops.md name or the primitive's name.
  Attrs attrs;                  ///< Passed to the kernel.
  std::vector<ExecPort> inputs; ///< Data inputs in operand order.
  std::vector<ExecNodeId> controlInputs;
  int32_t numOutputs = 1;
  /// Cost class: expensive nodes are handed to idle threads, cheap ones run inline.
  bool expensive = false;
  ExecFrameId frame = 0;
  bool isConstant = false; ///< Enter only: a loop invariant.
  int32_t argIndex = 0;    ///< Arg only: which of RunOptions::feeds it outputs.
  ExecLocation loc;
  /// The device whose kernel runs the node (placement's choice; Send/Recv move tensors).
  Device device = Device::CPU;
  const KernelInfo *kernel = nullptr; ///< Set by finalize() for ExecKind::Kernel (on `device`).
};

/// A data or control edge as the executor walks it: from an output port (-1 = control edge) of
/// its source to input slot `dstSlot` of `dst`.
struct ExecOutEdge {
  ExecNodeId dst;
  int32_t srcPort;
  int32_t dstSlot;
  bool lastUseOfPort; ///< No later edge reads the same port: the value can be moved.
};

/// The static facts the executor needs about one node (computed by finalize()).
struct ExecNodePlan {
  ExecKind kind = ExecKind::Kernel; ///< Copies of the node's kind, cost class and output
  bool expensive = false;           ///< count, kept here so the executor's hot loop touches
  int32_t numOutputs = 1;           ///< one small array.
  ExecFrameId execFrame = 0;        ///< Frame whose iterations hold the node's state (an Enter runs
                                    ///< in the parent of the frame it enters).
  int32_t local = 0;                ///< Index among the nodes of execFrame.
  int32_t inputBase = 0;            ///< First input slot in execFrame's slot array.
  int32_t numData = 0;
  int32_t numControl = 0;
  int32_t numBackEdges = 0; ///< Merge: data inputs coming from NextIteration.
  int32_t exitIndex = -1;   ///< Exit: index among the exits of its frame.
  /// matmul_bias on the CPU: the executor writes the sum over the addend when the run holds
  /// it alone (docs/executor.md "In place").
  bool accumulates = false;
  uint32_t outBegin = 0, outEnd = 0; ///< Range in ExecGraph::outEdges().
};

/// The static facts about one frame (computed by finalize()).
struct ExecFramePlan {
  int32_t numNodes = 0;  ///< Nodes whose execFrame is this frame.
  int32_t numSlots = 0;  ///< Input slots of those nodes.
  int32_t numEnters = 0; ///< Enter nodes into this frame (one arrival each per instance).
  std::vector<ExecNodeId> exits;
  std::vector<ExecNodeId> roots;       ///< Nodes with no inputs (root frame only).
  std::vector<int32_t> initialPending; ///< Per local node.
};

class ExecGraph {
public:
  ExecGraph();

  /// Adds a loop frame nested in `parent`; names are unique per parent.
  ExecFrameId addFrame(std::string name, ExecFrameId parent, int32_t parallelIterations);
  /// Adds a node running op `op` (a kernel name or a control-flow primitive).
  ExecNodeId addNode(std::string op, std::vector<ExecPort> inputs, int32_t numOutputs = 1,
                     ExecFrameId frame = 0, Attrs attrs = {});
  /// Adds an Enter of `input` into `frame`.
  ExecNodeId addEnter(ExecPort input, ExecFrameId frame, bool isConstant);
  void addControlEdge(ExecNodeId from, ExecNodeId to);

  ExecNode &node(ExecNodeId id) { return nodeList[id]; }
  const ExecNode &node(ExecNodeId id) const { return nodeList[id]; }
  size_t numNodes() const { return nodeList.size(); }
  const ExecFrame &frame(ExecFrameId id) const { return frameList[id]; }
  size_t numFrames() const { return frameList.size(); }

  /// Checks the structure, resolves kernels and computes the plan. On failure the message
  /// names the offending node ("node 12 'add' at f.dlm:3:5: ...") and the graph stays unfinalized.
  Status finalize();
  bool isFinalized() const { return finalized; }

  // --- The plan (valid after finalize) ---------------------------------------------------
  const ExecNodePlan &plan(ExecNodeId id) const { return nodePlans[id]; }
  const ExecFramePlan &framePlan(ExecFrameId id) const { return framePlans[id]; }
  const std::vector<ExecOutEdge> &outEdges() const { return edges; }

private:
  Status fail(ExecNodeId id, const std::string &message) const;
  Status checkNode(ExecNodeId id) const;
  Status checkEdges() const;
  Status checkAcyclic() const;
  void layOut();

  std::vector<ExecFrame> frameList;
  std::vector<ExecNode> nodeList;
  std::vector<ExecNodePlan> nodePlans;
  std::vector<ExecFramePlan> framePlans;
  std::vector<ExecOutEdge> edges;
  bool finalized = false;
};

} // namespace dlm::rt

#endif // DLM_RUNTIME_EXEC_EXECGRAPH_H
