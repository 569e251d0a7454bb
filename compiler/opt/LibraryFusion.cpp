//===- compiler/opt/LibraryFusion.cpp - Rewrite subgraphs into fused library ops ===//
//
// Subgraph rewriting into the runtime's fused library ops (Grappler's remapper): a dense layer
// `relu(x @ w + b)` is three kernels and two intermediate tensors; `matmul_bias(x, w, b)
// {relu = true}` is one GEMM whose output buffer also takes the bias and the relu in one pass
// (kernels/cpu/Linalg.cpp). The numbers are the same as the unfused ops', bit for bit (the
// kernel adds the bias after the GEMM, as `add` does).
//
// Rules (`b` of the product's float dtype, broadcasting to the product's shape):
//   add(matmul(x, w), b)  or  add(b, matmul(x, w))  -> matmul_bias(x, w, b) {relu = false}
//   relu(matmul_bias(x, w, b) {relu = false})       -> matmul_bias(x, w, b) {relu = true}
//   add(conv2d(x, w) {stride, padding}, b), relu of that: likewise conv2d_bias {stride,
//   padding, relu} (a conv layer's bias is reshape(b, 1, -1, 1, 1))
//
// Algorithm:
//   1. Walk the nodes in topological order (a rewritten add is seen before its relu).
//   2. An `add` one of whose operands is a `matmul` or `conv2d` read by nothing else, in the same
//      frame, becomes `matmul_bias` in place on the matmul's operands; it takes the product's
//      control inputs and attributes besides its own, so it runs exactly when both did. A
//      product that may fail can have control users (the side effect after it in program
//      order: docs/ir.md "Program order"); they wait for the fused node instead, which must
//      come before them in the schedule (so none of them is on the bias's side).
//   3. A `relu` of a fused node with `relu = false` read by nothing else becomes the fused node
//      with `relu = true`, likewise.
//   4. Remove the bypassed nodes.
//
// Requires: a verified graph  Preserves: frames, deadness, exact results  Invalidates: node ids
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"

#include <algorithm>

namespace dlm::opt {

using namespace graph;

namespace {

/// The products a bias can join, and the fused library op each becomes.
std::optional<OpKind> fusedOpFor(OpKind op) {
  if (op == OpKind::Matmul)
    return OpKind::MatmulBias;
  if (op == OpKind::Conv2d)
    return OpKind::Conv2dBias;
  return std::nullopt;
}

class LibraryFuser : GraphRewrite {
public:
  LibraryFuser(Graph &g, PassContext &ctx) : GraphRewrite(g, ctx), keep(g.numNodes(), true) {}

  PassResult run() {
    std::optional<std::vector<NodeId>> order = g.topologicalOrder();
    if (!order)
      return PassResult::Unchanged;
    pos.resize(g.numNodes());
    for (size_t i = 0; i < order->size(); ++i)
      pos[(*order)[i]] = i;
    bool changed = false;
    for (NodeId id : *order) {
      if (g.node(id).op == OpKind::Add)
        changed |= fuseBias(id);
      else if (g.node(id).op == OpKind::Relu)
        changed |= fuseRelu(id);
    }
    return finishRewrite(g, changed, keep);
  }

private:
  std::vector<bool> keep;
  std::vector<size_t> pos; ///< position in the topological order

  /// `v`'s producer is read only by `user` (once), runs in user's frame, and what hangs from it
  /// comes after `user`.
  bool onlyFeeds(ValueRef v, NodeId user) {
    const Node &p = g.node(v.node);
    return keep[p.id] && p.frame == g.node(user).frame && uses[p.id].size() == 1 &&
           uses[p.id][0].user == user &&
           std::all_of(controlUses[p.id].begin(), controlUses[p.id].end(),
                       [&](NodeId c) { return pos[c] > pos[user]; });
  }

  /// Node `into` takes over `from`'s operands, control inputs and control users; `from` goes.
  void absorb(NodeId into, NodeId from, std::vector<ValueRef> inputs) {
    Node &n = g.node(into);
    n.inputs = std::move(inputs);
    for (NodeId c : g.node(from).controlInputs)
      g.addControlInput(into, c);
    moveControlUsers(g, from, into, controlUses);
    keep[from] = false;
  }

  // add(matmul(x, w), b) -> matmul_bias(x, w, b) {relu = false}, conv2d likewise
  bool fuseBias(NodeId id) {
    const Node &add = g.node(id);
    for (unsigned side = 0; side < 2; ++side) {
      ValueRef product = add.inputs[side], bias = add.inputs[1 - side];
      std::optional<OpKind> fused = fusedOpFor(g.node(product.node).op);
      if (!fused || !onlyFeeds(product, id))
        continue;
      // A product that can fail (run-time shapes) must not wait for a bias made later in the
      // graph (fuse-horizontal's split, placed at the end): the engines run ready nodes in id
      // order, so its error would come after autodiff pushes that follow it in the program.
      if (bias.node > product.node && mayFail(g, g.node(product.node)))
        continue;
      const Type &pt = g.typeOf(product), &bt = g.typeOf(bias);
      if (!pt.isTensor() || !bt.isTensor() || !isFloat(pt.dtype()) || bt.dtype() != pt.dtype() ||
          !(add.results[0] == pt) || bt.rank() > pt.rank())
        continue;
      std::vector<ValueRef> inputs = g.node(product.node).inputs;
      inputs.push_back(bias);
      Attrs attrs = g.node(product.node).attrs;
      absorb(id, product.node, std::move(inputs));
      Node &n = g.node(id);
      n.op = *fused;
      n.attrs = std::move(attrs);
      n.attrs["relu"] = false;
      ctx.count(n.op == OpKind::MatmulBias ? "matmul-bias" : "conv2d-bias");
      return true;
    }
    return false;
  }

  // relu(matmul_bias(x, w, b) {relu = false}) -> matmul_bias(x, w, b) {relu = true}, conv2d_bias
  // likewise
  bool fuseRelu(NodeId id) {
    ValueRef in = g.node(id).inputs[0];
    OpKind op = g.node(in.node).op;
    const bool *relu = g.node(in.node).attrAs<bool>("relu");
    if ((op != OpKind::MatmulBias && op != OpKind::Conv2dBias) || !onlyFeeds(in, id) || !relu ||
        *relu)
      return false;
    Attrs attrs = g.node(in.node).attrs;
    absorb(id, in.node, g.node(in.node).inputs);
    Node &n = g.node(id);
    n.op = g.node(in.node).op;
    n.attrs = std::move(attrs);
    n.attrs["relu"] = true;
    // A relu cannot fail; the product or the bias can: their errors point where they do at -O0.
    n.loc = g.node(in.node).loc;
    ctx.count(n.op == OpKind::MatmulBias ? "matmul-bias-relu" : "conv2d-bias-relu");
    return true;
  }
};

} // namespace

PassResult runLibraryFusion(Graph &g, PassContext &ctx) { return LibraryFuser(g, ctx).run(); }

} // namespace dlm::opt
