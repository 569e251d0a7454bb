//===- compiler/ir/Graph.h - The dataflow graph IR ------------------------===//
//
// The graph IR that lowering produces from typed SSA and that autodiff, the optimizer, codegen and
// the graph executor consume (docs/ir.md). Operations are nodes, tensors flow on data edges from an
// output port of one node to an input of another, and control edges order nodes without carrying
// a value. Control flow uses TensorFlow's primitives — Switch, Merge, Enter, Exit, NextIteration,
// LoopCond — and loops run in named frames that nest.
//
// Everything a client walks is deterministic: nodes are numbered densely in creation order
// (`NodeId` = index into `nodes()`), inputs and control inputs keep their order, attributes are
// kept sorted by name, frames are numbered in creation order with the root frame first. Node order
// is not a topological order (a NextIteration feeds a Merge created before it); use
// `topologicalOrder()` for one.
//
// Frame convention: a node's `frame` is the frame it executes in. An Enter node belongs to the
// child frame it enters (its input comes from the parent frame); an Exit node belongs to the frame
// it leaves (its output is consumed in the parent frame); NextIteration and Merge stay in their
// loop's frame.
//
// Control-flow primitives (registry entries like every other op; docs/ir.md has the details):
//   Switch(data, pred: bool[])  -> (false_out, true_out)  only the side `pred` selects is live;
//                                                           the other carries a dead token
//   Merge(x0, x1, ...)          -> out                     fires on its first live input
//   Enter(x) {is_constant}      -> out                     x (parent frame) into the node's frame;
//                                                           constant: the same value in every
//                                                           iteration (a loop invariant)
//   Exit(x)                     -> out                     x out of the node's frame to its parent
//   NextIteration(x)            -> out                     x into the next iteration (feeds a
//   Merge) LoopCond(pred: bool[])      -> out                     the loop predicate (pred itself)
//   Identity(x)                 -> out                     x; used as a pivot that control edges
//                                                           hang from inside a branch or loop body
// Deadness: a node with a dead data or control input is dead (produces dead tokens on every
// output and does not run), except Merge, which is dead only when all its inputs are.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_IR_GRAPH_H
#define DLM_COMPILER_IR_GRAPH_H

#include "compiler/ir/OpRegistry.h"
#include "compiler/ir/Type.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dlm::graph {

using NodeId = uint32_t;
using FrameId = uint32_t;

/// The root frame: where every node outside a loop runs.
constexpr FrameId kRootFrame = 0;
/// "No frame": the parent of the root frame.
constexpr FrameId kNoFrame = UINT32_MAX;

/// The producer of a data edge: output `port` of node `node`.
struct ValueRef {
  NodeId node = 0;
  uint32_t port = 0;
  friend bool operator==(const ValueRef &, const ValueRef &) = default;
  friend auto operator<=>(const ValueRef &, const ValueRef &) = default;
};

/// Names a call that lowering inlined: 0 = none (the position is in the program's top level),
/// k = `Graph::callSite(k)`.
using CallSiteId = uint32_t;
constexpr CallSiteId kNoCallSite = 0;

/// A source position in the .dlm program (or .dlmir file) a node came from; line 0 = unknown.
/// `file` and `gradOf` point into storage owned by the Graph (see Graph::internFile), and
/// `inlinedAt` indexes its call-site table: a position inside a function body says through
/// which calls that body was inlined, so a run-time error can point at the user's call
/// (docs/runtime.md "Where a run-time error points").
struct Location {
  std::string_view file;
  uint32_t line = 0;
  uint32_t col = 0;
  /// The innermost call whose inlined body holds this position; kNoCallSite outside calls.
  CallSiteId inlinedAt = kNoCallSite;
  /// A gradient node's forward op ("sigmoid"; the position is that op's), empty otherwise:
  /// run-time errors say "in the gradient of 'sigmoid' at FILE:LINE:COL" (docs/autodiff.md).
  std::string_view gradOf{};
  bool isKnown() const { return line != 0; }
};

/// One inlined call: the function entered (its qualified name, "nn.linear") and where it was
/// called. `at.inlinedAt` is the caller's own call site, so a chain runs innermost first.
struct CallSite {
  std::string_view function;
  Location at;
};

/// A loop's execution frame (TensorFlow's frame): values enter through Enter nodes, leave through
/// Exit nodes, and cycle through NextIteration -> Merge. Up to `parallelIterations` iterations may
/// be in flight at once.
struct Frame {
  std::string name;          ///< unique in the graph; "" for the root frame.
  FrameId parent = kNoFrame; ///< kNoFrame for the root frame only.
  int64_t parallelIterations = 1;
};

/// One operation.
struct Node {
  NodeId id = 0;
  OpKind op = OpKind::Identity;      ///< the op (ops/Ops.def), control-flow primitives included
  std::vector<ValueRef> inputs;      ///< data inputs, in operand order.
  std::vector<NodeId> controlInputs; ///< nodes that must run first; no value flows.
  Attrs attrs;                       ///< by name (std::map: deterministic order).
  /// One type per output port (may be empty): a tensor type (scalars are 0-d tensors: int i64,
  /// float f64, bool bool) or `str` for the path and message operands of side-effecting ops.
  std::vector<Type> results;
  FrameId frame = kRootFrame; ///< the frame the node runs in (see file comment).
  /// The device the placement pass assigned ("cpu", "cuda", "fake"; docs/cuda.md), printed
  /// ` on NAME`; empty until placement runs (unplaced graphs run on the CPU).
  std::string device;
  Location loc;

  size_t numResults() const { return results.size(); }
  /// The op's registry entry.
  const OpInfo &info() const { return opInfo(op); }
  /// The attribute called `name`, or null.
  const AttrValue *attr(const std::string &name) const;
  /// The attribute called `name` if it holds a T, else null: `n.attrAs<bool>("is_constant")`.
  template <typename T> const T *attrAs(const std::string &name) const {
    const AttrValue *v = attr(name);
    return v ? std::get_if<T>(v) : nullptr;
  }
};

/// A consumer of a value or node, as computed by Graph::dataUses().
struct Use {
  NodeId user = 0;
  uint32_t operand = 0; ///< input index for data uses.
};

/// A dataflow graph: nodes, frames and the file names its locations refer to. Movable, not
/// copyable (locations point into its string storage); `clone()` makes an independent copy.
class Graph {
public:
  Graph();
  Graph(Graph &&) = default;
  Graph &operator=(Graph &&) = default;
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;
  Graph clone() const;

  /// The graph's symbol name (`@main`), printed without the '@'.
  const std::string &name() const { return graphName; }
  void setName(std::string n) { graphName = std::move(n); }

  // --- Frames ------------------------------------------------------------------------------
  /// Adds a frame nested in `parent`. The name must be unique (FrameId of the existing frame
  /// with that name, if any, is what findFrame returns).
  FrameId addFrame(std::string name, FrameId parent, int64_t parallelIterations);
  const Frame &frame(FrameId id) const { return frameList[id]; }
  Frame &frame(FrameId id) { return frameList[id]; }
  const std::vector<Frame> &frames() const { return frameList; }
  size_t numFrames() const { return frameList.size(); }
  std::optional<FrameId> findFrame(std::string_view name) const;
  /// True when `inner` is `outer` or nested (transitively) inside it.
  bool frameWithin(FrameId inner, FrameId outer) const;
  /// Number of frames between `id` and the root (root = 0).
  unsigned frameDepth(FrameId id) const;

  // --- Nodes -------------------------------------------------------------------------------
  /// Appends a node and returns it; its id is the previous node count. The reference stays
  /// valid until the next addNode.
  Node &addNode(OpKind op, std::vector<ValueRef> inputs, std::vector<Type> results, FrameId frame,
                Location loc = {});
  const Node &node(NodeId id) const { return nodeList[id]; }
  Node &node(NodeId id) { return nodeList[id]; }
  const std::vector<Node> &nodes() const { return nodeList; }
  std::vector<Node> &nodes() { return nodeList; }
  size_t numNodes() const { return nodeList.size(); }
  /// Output `port` of `id` as a ValueRef.
  static ValueRef value(NodeId id, uint32_t port = 0) { return ValueRef{id, port}; }
  /// The type of a value (its producer's result type at that port).
  const Type &typeOf(ValueRef v) const { return nodeList[v.node].results[v.port]; }
  /// Adds a control edge from -> to (no-op if it exists).
  void addControlInput(NodeId to, NodeId from);

  /// Data consumers of each node (index = producer NodeId), in (user, operand) order.
  std::vector<std::vector<Use>> dataUses() const;
  /// Control consumers of each node, in user order.
  std::vector<std::vector<NodeId>> controlUses() const;

  /// A topological order of all nodes in which each node follows its data and control inputs,
  /// except the input edges of Merge nodes coming from NextIteration (the loop back edges); ties
  /// broken by NodeId. nullopt when any other cycle exists.
  std::optional<std::vector<NodeId>> topologicalOrder() const;

  /// Removes the nodes whose `keep` entry is false and renumbers the rest in order. Edges into
  /// removed nodes must not exist among kept nodes (asserted).
  void compact(const std::vector<bool> &keep);
  /// Removes frames in which no node runs (directly or in a nested frame), e.g. the frame of a
  /// loop dead-code elimination removed whole, and renumbers the rest in order. compact() calls it.
  void dropEmptyFrames();

  /// Returns a stable copy of `file` owned by this graph, for Location::file and ::gradOf.
  std::string_view internFile(std::string_view file);

  // --- Call sites ------------------------------------------------------------------------
  /// The id of the call of `function` at `at` (at.inlinedAt: the caller's call site), added
  /// on first use: equal calls share one id. `at.gradOf` is ignored.
  CallSiteId internCallSite(std::string_view function, Location at);
  /// Call site `id` (1 <= id <= numCallSites()).
  const CallSite &callSite(CallSiteId id) const { return callSiteList[id - 1]; }
  size_t numCallSites() const { return callSiteList.size(); }

private:
  std::string graphName = "main";
  std::vector<Frame> frameList;
  std::vector<Node> nodeList;
  std::deque<std::string> fileNames;  // deque: elements never move, so views stay valid.
  std::vector<CallSite> callSiteList; // CallSiteId k is element k - 1
};

/// The graph types a value of language type `t` travels as: int, float and bool become 0-d
/// tensors (i64, f64, bool), tensors and str stay, tuples are flattened in order, none gives
/// nothing.
std::vector<Type> graphTypes(const Type &t);

/// True when two graph types can describe the same value: same kind, dtype and rank, and equal
/// sizes wherever both dims are static (symbolic dims match anything).
bool typesCompatible(const Type &a, const Type &b);

} // namespace dlm::graph

#endif // DLM_COMPILER_IR_GRAPH_H
