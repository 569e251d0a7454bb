//===- compiler/opt/HorizontalFusion.cpp - One matmul for sibling matmuls ===//
//
// Horizontal fusion: independent sibling matmuls that multiply the same left operand by
// different weights — an LSTM's gate matmuls, the backward's `dz @ wh.T` and `dz @ wx.T` —
// become one matmul by the weights concatenated along their columns, and a split of the result:
//
//   matmul(x, w1), ..., matmul(x, wk)  ->  split(matmul(x, concat(w1, ..., wk) {axis = 1}))
//                                           {axis = -1, sizes = [n1, ..., nk]}
//
// One larger GEMM uses the cores better than k small ones and reads x once. It pays only when
// the concatenation is not paid each time: the pass fuses siblings inside a loop whose weights
// are all loop invariants of a top-level loop (constant Enters, or licm's Identity of one), and
// builds the concatenation once before the loop, entering it as one more constant Enter. The
// columns of each product are computed by the same dot products as before.
//
// Algorithm:
//   1. Group the matmuls of each loop frame in the root frame's children by (left operand,
//      control inputs); keep those whose weight is a static 2-D loop invariant of the left
//      operand's dtype with the group's row count, and whose result is static.
//   2. For each group of two or more: concat the weights' outside values in the root frame,
//      Enter the result as a constant, one matmul on it (taking the control inputs the weights'
//      Identities carried), a split along the last axis; each old matmul's users read its part.
//   3. Leave the bypassed matmuls to `dce`.
//
// Requires: a verified graph  Preserves: frames, deadness  Invalidates: node order
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"

#include <algorithm>
#include <map>

namespace dlm::opt {

using namespace graph;

namespace {

struct Sibling {
  NodeId matmul;
  ValueRef outside; ///< the weight's value in the root frame
  int64_t columns;
};

/// The group key: siblings read the same left operand under the same control inputs.
using GroupKey = std::pair<ValueRef, std::vector<NodeId>>;

/// `n` as a fusable sibling: a matmul in a top-level loop whose weight is a static 2-D loop
/// invariant and whose types are static.
std::optional<Sibling> asSibling(const Graph &g, const Node &n) {
  if (n.op != "matmul" || n.frame == kRootFrame || g.frame(n.frame).parent != kRootFrame)
    return std::nullopt;
  const Type &x = g.typeOf(n.inputs[0]), &w = g.typeOf(n.inputs[1]);
  if (!x.isTensor() || !w.isTensor() || x.rank() < 2 || w.rank() != 2 ||
      x.dtype() != w.dtype() || !isFloat(x.dtype()) || !w.staticNumElements() ||
      !n.results[0].staticNumElements())
    return std::nullopt;
  std::optional<ValueRef> outside = invariantSource(g, n.inputs[1]);
  if (!outside || g.node(outside->node).frame != kRootFrame)
    return std::nullopt;
  return Sibling{n.id, *outside, w.shape()[1].size()};
}

class HorizontalFuser {
public:
  HorizontalFuser(Graph &g, PassContext &ctx) : g(g), ctx(ctx) {}

  PassResult run() {
    std::map<GroupKey, std::vector<Sibling>> groups;
    for (const Node &n : g.nodes())
      if (std::optional<Sibling> s = asSibling(g, n))
        groups[{n.inputs[0], n.controlInputs}].push_back(*s);
    bool changed = false;
    for (auto &[key, siblings] : groups)
      if (siblings.size() >= 2)
        changed |= fuse(key.first, siblings);
    return changed ? PassResult::Changed : PassResult::Unchanged;
  }

private:
  Graph &g;
  PassContext &ctx;

  bool fuse(ValueRef x, const std::vector<Sibling> &siblings) {
    const Node &first = g.node(siblings[0].matmul);
    FrameId frame = first.frame;
    Location loc = first.loc;
    std::vector<NodeId> deps = first.controlInputs;
    std::vector<ValueRef> weights;
    std::vector<int64_t> sizes;
    int64_t total = 0;
    for (const Sibling &s : siblings) {
      weights.push_back(s.outside);
      sizes.push_back(s.columns);
      total += s.columns;
      // The weight's Identity hung from pivots: the fused matmul keeps that deadness.
      const Node &w = g.node(g.node(s.matmul).inputs[1].node);
      if (w.op == "Identity")
        deps.insert(deps.end(), w.controlInputs.begin(), w.controlInputs.end());
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    Type w0 = g.typeOf(siblings[0].outside);
    Type catType = Type::tensor(w0.dtype(), {w0.shape()[0], Dim::fixed(total)});
    Node &cat = g.addNode("concat", weights, {catType}, kRootFrame, loc);
    cat.attrs["axis"] = int64_t(1);
    NodeId catId = cat.id;
    Node &enter = g.addNode("Enter", {Graph::value(catId)}, {catType}, frame, loc);
    enter.attrs["is_constant"] = true;
    NodeId enterId = enter.id;
    Shape outShape = g.node(siblings[0].matmul).results[0].shape();
    outShape.back() = Dim::fixed(total);
    Node &mm = g.addNode("matmul", {x, Graph::value(enterId)}, {Type::tensor(w0.dtype(), outShape)},
                         frame, loc);
    mm.controlInputs = deps;
    NodeId mmId = mm.id;
    std::vector<Type> parts;
    for (const Sibling &s : siblings)
      parts.push_back(g.node(s.matmul).results[0]);
    Node &split = g.addNode("split", {Graph::value(mmId)}, parts, frame, loc);
    split.attrs["axis"] = int64_t(outShape.size() - 1);
    split.attrs["sizes"] = sizes;
    NodeId splitId = split.id;
    for (uint32_t i = 0; i < siblings.size(); ++i)
      replaceAllUses(g, Graph::value(siblings[i].matmul), Graph::value(splitId, i));
    ctx.count("groups");
    ctx.count("matmuls-fused", static_cast<int64_t>(siblings.size()));
    return true;
  }
};

} // namespace

PassResult runHorizontalFusion(Graph &g, PassContext &ctx) { return HorizontalFuser(g, ctx).run(); }

} // namespace dlm::opt
