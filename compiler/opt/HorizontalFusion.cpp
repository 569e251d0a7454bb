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
// are all loop invariants (constant Enters, or licm's Identity of one), and builds the
// concatenation once before the loop, in the loop's parent frame, entering it as one more
// constant Enter. When that parent is itself a loop — a recurrent model's time loop inside a
// training loop, whose weights change once per training step — the concatenation is built once
// per outer iteration, for every iteration of the inner loop. The columns of each product are
// computed by the same dot products as before.
//
// The split's parts are views of the fused product (kernels/cpu/Shape.cpp); a part of a product
// with more than one row is strided, and every elementwise loop or kernel that reads it first
// copies it contiguous (docs/codegen.md). Measured (bench/RESULTS.md "Horizontal fusion"), that
// made a GRU step with 16 or 64 rows slower than the unfused matmuls, so the pass fuses only
// products with one row (every dim but the last is 1: a recurrent step on one sequence, the
// dispatch-bound case), whose parts are contiguous.
//
// Algorithm:
//   1. Group the matmuls of each loop frame by (left operand, control inputs); keep those whose
//      weight is a static 2-D loop invariant (a value of the parent frame) of the left operand's
//      dtype, and whose result is static with one row.
//   2. For each group of two or more: concat the weights' outside values in the parent frame,
//      Enter the result as a constant, one matmul on it (taking the control inputs the weights'
//      Identities carried), a split along the last axis; each old matmul's users read its part.
//   3. Two fused products in one loop summed part by part (an LSTM's x_t @ w_gate + h @ u_gate
//      for each gate) are summed whole and split once (`mergeSummedParts`), so fuse-library
//      can make the sum one matmul_bias; the splits and part sums this bypasses are removed.
//   4. Leave the bypassed matmuls to `dce`.
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
  ValueRef outside; ///< the weight's value in the loop's parent frame
  int64_t columns;
};

/// The group key: siblings read the same left operand under the same control inputs.
using GroupKey = std::pair<ValueRef, std::vector<NodeId>>;

/// True when every dim of `t` but the last is 1: a column block of it is contiguous.
bool hasOneRow(const Type &t) {
  const Shape &s = t.shape();
  for (size_t d = 0; d + 1 < s.size(); ++d)
    if (s[d].size() != 1)
      return false;
  return true;
}

/// `n` as a fusable sibling: a matmul in a loop whose weight is a static 2-D loop invariant
/// and whose types are static, with one row.
std::optional<Sibling> asSibling(const Graph &g, const Node &n) {
  if (n.op != OpKind::Matmul || n.frame == kRootFrame)
    return std::nullopt;
  const Type &x = g.typeOf(n.inputs[0]), &w = g.typeOf(n.inputs[1]);
  if (!x.isTensor() || !w.isTensor() || x.rank() < 2 || w.rank() != 2 || x.dtype() != w.dtype() ||
      !isFloat(x.dtype()) || !w.staticNumElements() || !n.results[0].staticNumElements() ||
      !hasOneRow(n.results[0]))
    return std::nullopt;
  std::optional<ValueRef> outside = invariantSource(g, n.inputs[1]);
  if (!outside || g.node(outside->node).frame != g.frame(n.frame).parent)
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
    for (size_t i = 0; i < splits.size(); ++i)
      for (size_t j = i + 1; j < splits.size(); ++j)
        if (mergeSummedParts(splits[i], splits[j]))
          break;
    // The bypassed splits and part sums go now, not in a later dce: fuse-library fuses a
    // product only into its one reader.
    if (!bypassed.empty()) {
      std::vector<bool> keep(g.numNodes(), true);
      for (NodeId id : bypassed)
        keep[id] = false;
      g.compact(keep);
    }
    return changed ? PassResult::Changed : PassResult::Unchanged;
  }

private:
  Graph &g;
  PassContext &ctx;
  std::vector<NodeId> splits;   ///< the splits this run made
  std::vector<NodeId> bypassed; ///< splits and sums that mergeSummedParts left without readers

  /// The `add` that is the only reader of both part `p` of split `a` and part `p` of split `b`
  /// and reads nothing else, with the part's type (no broadcasting).
  std::optional<NodeId> partSum(const std::vector<std::vector<Use>> &uses, NodeId a, NodeId b,
                                uint32_t p) {
    auto onlyUser = [&](NodeId split) -> std::optional<NodeId> {
      std::optional<NodeId> user;
      for (const Use &u : uses[split])
        if (g.node(split).inputs.size() == 1 && g.node(u.user).inputs[u.operand].port == p) {
          if (user)
            return std::nullopt;
          user = u.user;
        }
      return user;
    };
    std::optional<NodeId> ua = onlyUser(a), ub = onlyUser(b);
    if (!ua || ua != ub)
      return std::nullopt;
    const Node &add = g.node(*ua);
    bool reads = add.inputs.size() == 2 &&
                 ((add.inputs[0] == Graph::value(a, p) && add.inputs[1] == Graph::value(b, p)) ||
                  (add.inputs[0] == Graph::value(b, p) && add.inputs[1] == Graph::value(a, p)));
    if (add.op != OpKind::Add || !reads || !add.controlInputs.empty() ||
        add.results[0] != g.node(a).results[p])
      return std::nullopt;
    return *ua;
  }

  /// add(split(m1)#i, split(m2)#i) for every part i -> split(add(m1, m2))#i: two fused products
  /// summed part by part (an LSTM's x_t @ w_gate + h @ u_gate, gate by gate) are summed whole,
  /// one add instead of k, which `fuse-library` then folds into the GEMM as matmul_bias. Each
  /// element is the same sum of the same two numbers.
  bool mergeSummedParts(NodeId a, NodeId b) {
    const Node &sa = g.node(a), &sb = g.node(b);
    if (sa.frame != sb.frame || sa.results != sb.results || sa.attrs != sb.attrs ||
        g.typeOf(sa.inputs[0]) != g.typeOf(sb.inputs[0]))
      return false;
    std::vector<std::vector<Use>> uses = g.dataUses();
    std::vector<NodeId> sums;
    for (uint32_t p = 0; p < sa.numResults(); ++p) {
      std::optional<NodeId> sum = partSum(uses, a, b, p);
      if (!sum)
        return false;
      sums.push_back(*sum);
    }
    Node split = g.node(a);
    ValueRef m1 = split.inputs[0], m2 = g.node(b).inputs[0];
    Type whole = g.typeOf(m1);
    NodeId add = g.addNode(OpKind::Add, {m1, m2}, {whole}, split.frame, split.loc).id;
    Node &merged =
        g.addNode(OpKind::Split, {Graph::value(add)}, split.results, split.frame, split.loc);
    merged.attrs = split.attrs;
    NodeId mergedId = merged.id;
    for (uint32_t p = 0; p < sums.size(); ++p)
      replaceAllUses(g, Graph::value(sums[p]), Graph::value(mergedId, p));
    bypassed.insert(bypassed.end(), sums.begin(), sums.end());
    bypassed.push_back(a);
    bypassed.push_back(b);
    ctx.count("sums-merged");
    return true;
  }

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
      if (w.op == OpKind::Identity)
        deps.insert(deps.end(), w.controlInputs.begin(), w.controlInputs.end());
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    Type w0 = g.typeOf(siblings[0].outside);
    Type catType = Type::tensor(w0.dtype(), {w0.shape()[0], Dim::fixed(total)});
    Node &cat = g.addNode(OpKind::Concat, weights, {catType}, g.frame(frame).parent, loc);
    cat.attrs["axis"] = int64_t(1);
    NodeId catId = cat.id;
    Node &enter = g.addNode(OpKind::Enter, {Graph::value(catId)}, {catType}, frame, loc);
    enter.attrs["is_constant"] = true;
    NodeId enterId = enter.id;
    Shape outShape = g.node(siblings[0].matmul).results[0].shape();
    outShape.back() = Dim::fixed(total);
    Node &mm = g.addNode(OpKind::Matmul, {x, Graph::value(enterId)},
                         {Type::tensor(w0.dtype(), outShape)}, frame, loc);
    mm.controlInputs = deps;
    NodeId mmId = mm.id;
    std::vector<Type> parts;
    for (const Sibling &s : siblings)
      parts.push_back(g.node(s.matmul).results[0]);
    Node &split = g.addNode(OpKind::Split, {Graph::value(mmId)}, parts, frame, loc);
    split.attrs["axis"] = int64_t(outShape.size() - 1);
    split.attrs["sizes"] = sizes;
    NodeId splitId = split.id;
    splits.push_back(splitId);
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
