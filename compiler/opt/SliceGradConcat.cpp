//===- compiler/opt/SliceGradConcat.cpp - Tiled slice gradients as one concat ===//
//
// The gradient of a tensor read through several static slices is the sum of one `slice_grad`
// per slice: each places its window's gradient into zeros of the whole shape. When the
// windows are disjoint and tile the tensor along one axis (an LSTM's four gates cut from one
// [1, 4h] pre-activation), the sum is a concatenation of the windows' gradients: one op, no
// zero fill, no add, where the sum made k zero-filled tensors, k copies and k - 1 adds.
//
//   add(...add(slice_grad(g1), slice_grad(g2))..., slice_grad(gk))   windows tiling axis a
//     -> concat(add(g1', 0), ..., add(gk', 0)) {axis = a}             g' in window order
//
// Exactness: every element of the sum adds one window's value x to k - 1 zeros, which gives
// exactly x + 0.0: x itself, except that -0.0 becomes +0.0. So a float operand gets `+ 0.0`,
// which `fuse-elementwise` then folds into the loop computing it; integer operands need none.
//
// Algorithm:
//   1. Visit `add` nodes in id order; a tree root is an add that is not the one operand-user of
//      another add. Collect its leaves through adds that have the root's type (no broadcasting),
//      no control edges and one data user (their parent in the tree).
//   2. The leaves must be two or more `slice_grad`s of the root's type with static unit-step
//      bounds (no run-time operands), one user each and no control edges, whose windows are
//      whole along every axis but one and tile that axis without gaps or overlap.
//   3. Rewrite the root in place into the concat (its users and id stay); in a loop the zero
//      constant hangs from the body pivot (StackWeb.h bodyPivot), so it is made in every
//      iteration. The bypassed adds and slice_grads are left to `dce`.
//
// Requires: a verified graph  Preserves: frames, deadness, node ids of old nodes  Invalidates:
// nothing
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"
#include "compiler/opt/StackWeb.h"

#include "compiler/ir/NodeFacts.h"

#include <algorithm>

namespace dlm::opt {

using namespace graph;

namespace {

/// One leaf: the slice_grad's gradient operand and where its window starts along the axis.
struct Window {
  ValueRef grad;
  int64_t start = 0;
  int64_t length = 0;
};

class SliceGradConcatenator : GraphRewrite {
public:
  using GraphRewrite::GraphRewrite;

  PassResult run() {
    bool changed = false;
    size_t original = g.numNodes();
    for (NodeId id = 0; id < original; ++id)
      if (isTreeRoot(id))
        changed |= rewrite(id);
    return changed ? PassResult::Changed : PassResult::Unchanged;
  }

private:
  bool isPlainAdd(NodeId id, const Type &t) const {
    const Node &n = g.node(id);
    return n.op == OpKind::Add && n.inputs.size() == 2 && n.results.size() == 1 &&
           n.results[0] == t && n.controlInputs.empty() && controlUses[id].empty();
  }

  bool hasOneUser(NodeId id) const { return uses[id].size() == 1 && controlUses[id].empty(); }

  /// An add whose value is not summed further by an add of the same type that takes it whole.
  bool isTreeRoot(NodeId id) const {
    const Node &n = g.node(id);
    if (n.op != OpKind::Add || n.results.size() != 1 || !n.results[0].isTensor())
      return false;
    return !(hasOneUser(id) && isPlainAdd(uses[id][0].user, n.results[0]) &&
             isPlainAdd(id, n.results[0]));
  }

  /// The leaves of the add tree under `v` (in operand order); false when an inner add is shared.
  bool collectLeaves(ValueRef v, const Type &t, bool isRoot, std::vector<NodeId> &leaves) const {
    if (v.port == 0 && isPlainAdd(v.node, t) && (isRoot || hasOneUser(v.node))) {
      for (ValueRef in : g.node(v.node).inputs)
        if (!collectLeaves(in, t, false, leaves))
          return false;
      return true;
    }
    leaves.push_back(v.node);
    return true;
  }

  /// The leaves as windows along one axis that tile it, sorted by start; nullopt otherwise.
  std::optional<std::pair<int64_t, std::vector<Window>>> tiling(const std::vector<NodeId> &leaves,
                                                                const Type &t) const {
    std::vector<std::vector<int64_t>> starts;
    for (NodeId id : leaves) {
      const Node &n = g.node(id);
      if (n.op != OpKind::SliceGrad || n.inputs.size() != 1 || n.results[0] != t ||
          !hasOneUser(id) || !n.controlInputs.empty())
        return std::nullopt;
      std::optional<std::vector<int64_t>> start =
          staticSliceStart(n, n.results[0].shape(), g.typeOf(n.inputs[0]).shape());
      if (!start)
        return std::nullopt;
      starts.push_back(*start);
    }
    // The axis: the one dim along which some window is not whole.
    const Shape &whole = t.shape();
    std::optional<int64_t> axis;
    for (size_t k = 0; k < leaves.size(); ++k) {
      const Shape &w = g.typeOf(g.node(leaves[k]).inputs[0]).shape();
      for (size_t d = 0; d < whole.size(); ++d) {
        if (w[d].size() == whole[d].size())
          continue;
        if (axis && *axis != int64_t(d))
          return std::nullopt;
        axis = int64_t(d);
      }
    }
    if (!axis)
      return std::nullopt;
    std::vector<Window> windows;
    for (size_t k = 0; k < leaves.size(); ++k) {
      ValueRef grad = g.node(leaves[k]).inputs[0];
      windows.push_back({grad, starts[k][*axis], g.typeOf(grad).shape()[*axis].size()});
    }
    std::sort(windows.begin(), windows.end(),
              [](const Window &a, const Window &b) { return a.start < b.start; });
    int64_t at = 0;
    for (const Window &w : windows) {
      if (w.start != at || w.length == 0)
        return std::nullopt;
      at += w.length;
    }
    if (at != whole[*axis].size())
      return std::nullopt;
    return std::make_pair(*axis, windows);
  }

  /// The zero constant of `frame`: in a loop it hangs from the body pivot (so it is made in
  /// every iteration); never from the gradients' producers, which would then have a control
  /// user and could not be fused with the add.
  std::optional<NodeId> makeZero(DType dtype, FrameId frame, Location loc) {
    std::optional<NodeId> pivot;
    if (frame != kRootFrame && !(pivot = bodyPivot(g, frame, {})))
      return std::nullopt;
    Node &zero = g.addNode(OpKind::Const, {}, {Type::tensor(dtype, {})}, frame, loc);
    zero.attrs["value"] = std::vector<double>{0.0};
    zero.attrs["dtype"] = dtype;
    zero.attrs["shape"] = Shape{};
    if (pivot)
      zero.controlInputs.push_back(*pivot);
    return zero.id;
  }

  // add(...slice_grad(g_i)...) -> concat(add(g_i, 0)...) when the windows tile one axis
  bool rewrite(NodeId root) {
    Type t = g.node(root).results[0];
    std::vector<NodeId> leaves;
    if (!collectLeaves(Graph::value(root), t, true, leaves) || leaves.size() < 2)
      return false;
    std::optional<std::pair<int64_t, std::vector<Window>>> tiles = tiling(leaves, t);
    if (!tiles)
      return false;
    auto &[axis, windows] = *tiles;
    FrameId frame = g.node(root).frame;
    Location loc = g.node(root).loc;
    std::vector<ValueRef> parts;
    if (!isFloat(t.dtype())) {
      for (const Window &w : windows)
        parts.push_back(w.grad);
    } else {
      // -0.0 + 0.0 is +0.0, as in the sum; anything else plus +0.0 is itself.
      std::optional<NodeId> zero = makeZero(t.dtype(), frame, loc);
      if (!zero)
        return false;
      for (const Window &w : windows) {
        Type part = g.typeOf(w.grad);
        parts.push_back(Graph::value(
            g.addNode(OpKind::Add, {w.grad, Graph::value(*zero)}, {part}, frame, loc).id));
      }
    }
    Node &cat = g.node(root);
    cat.op = OpKind::Concat;
    cat.inputs = parts;
    cat.attrs.clear();
    cat.attrs["axis"] = axis;
    ctx.count("concats");
    ctx.count("slice-grads-replaced", static_cast<int64_t>(windows.size()));
    return true;
  }
};

} // namespace

PassResult runSliceGradConcat(Graph &g, PassContext &ctx) {
  return SliceGradConcatenator(g, ctx).run();
}

} // namespace dlm::opt
