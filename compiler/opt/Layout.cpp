//===- compiler/opt/Layout.cpp - NCHW -> NHWC for conv chains when it pays -===//
//
// The language's images are NCHW. The CPU convolutions are im2col + GEMM, and in NHWC the im2col
// rows are contiguous runs of C channels, the GEMM writes the NHWC output directly and a 1x1
// convolution is a plain GEMM on its input (kernels/cpu/NN.cpp). This pass moves chains of
// convolutions, pooling, bias, elementwise ops and their gradients to NHWC (the `layout`
// attribute of the conv and pool ops), with transposes only at the chain's boundaries, when a
// cost rule measured on this CPU says the faster convolutions pay for those transposes.
//
// Cost rule (bench/RESULTS.md "Layout: NCHW vs NHWC", one thread, CPU time):
//   - a convolution (conv2d, conv2d_bias, conv2d_grad_input, conv2d_grad_weight) is faster in
//     NHWC when its input has at least kMinChannels channels: 1.2-2x at C = 16..256, but 3.7x
//     slower at C = 1, where every im2col run is one float. Such a convolution saves, at the
//     measured 20% or more of ~13 GFLOP/s, about 0.015 ns per FLOP;
//   - pooling is as fast in either layout; elementwise ops do not care;
//   - a boundary transpose costs ~0.45 ns per element (a strided copy); one that moves only
//     size-1 dims (C = 1 images, [1, C, 1, 1] biases) is a free reshape.
//   So a chain goes NHWC when its convolutions' FLOPs exceed kFlopsPerTransposedElement (30)
//   times the elements transposed at its boundary.
//
// Algorithm:
//   1. Candidates: conv and pool ops (and their gradients) in NCHW with static rank-4 activations
//      — convolutions only where they pay (C >= kMinChannels); pure elementwise ops and
//      zeros_like whose operands are scalars or static rank 4; sum_to to a rank-4 shape.
//   2. Chains: candidates joined by activation edges (union-find; a weight or a weight gradient
//      is not an activation). Chains without a convolution stay as they are.
//   3. Peel: a chain drops a non-convolution member while that does not grow its boundary
//      elements (so a transpose lands on the smaller side of a relu + pool).
//   4. Decide by the cost rule; a chain that does not pay keeps NCHW (counted as kept-nchw).
//   5. Rewrite: members take layout = "NHWC" (input_shape and sum_to shapes permuted, result
//      types permuted); activation operands from outside the chain get transpose(perm = [0, 2,
//      3, 1]), users outside get transpose(perm = [0, 3, 1, 2]), each made once per value.
//      Transpose pairs cancel as they would form (also in the gradient graph):
//        transpose(transpose(u, [0, 3, 1, 2]), [0, 2, 3, 1]) -> u   (a chain's NHWC input)
//        transpose(transpose(y, [0, 2, 3, 1]), [0, 3, 1, 2]) -> y   (a user of its output)
//      The cancelled outside transposes go; an inside one may still have other users (dce).
//
// Requires: a verified graph  Preserves: frames, deadness, results up to the order of the GEMM
// sums (docs/opt.md)  Invalidates: node ids
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"

#include "compiler/ir/OpRegistry.h"

#include <algorithm>
#include <map>
#include <iterator>
#include <numeric>

namespace dlm::opt {

using namespace graph;

namespace {

const std::vector<int64_t> kToNhwc = {0, 2, 3, 1}, kToNchw = {0, 3, 1, 2};
/// The cost rule (file comment): the fewest input channels at which NHWC convolves faster, and
/// how many convolution FLOPs one transposed element must buy.
constexpr int64_t kMinChannels = 8;
constexpr int64_t kFlopsPerTransposedElement = 30;

/// How a layout-sensitive op reads its operands: which are activations (NCHW images and their
/// gradients), whether its result is one, which shape attribute describes an activation, and
/// where its weight's shape is (operand or attribute) if it is a convolution.
struct SensitiveOp {
  const char *op;
  std::vector<unsigned> activations;
  bool activationResult;
  const char *shapeAttr;
  int weightOperand;      ///< -1: not a convolution, or the weight comes from weightAttr
  const char *weightAttr; ///< conv2d_grad_weight's weight_shape
  int outputOperand;      ///< the convolution's output (or its gradient); -1: the result
};

const SensitiveOp kSensitiveOps[] = {
    {"conv2d", {0}, true, nullptr, 1, nullptr, -1},
    {"conv2d_bias", {0, 2}, true, nullptr, 1, nullptr, -1},
    {"conv2d_grad_input", {0}, true, "input_shape", 1, nullptr, 0},
    {"conv2d_grad_weight", {0, 1}, false, nullptr, -1, "weight_shape", 1},
    {"max_pool2d", {0}, true, nullptr, -1, nullptr, -1},
    {"avg_pool2d", {0}, true, nullptr, -1, nullptr, -1},
    {"max_pool2d_grad", {0, 1}, true, nullptr, -1, nullptr, -1},
    {"avg_pool2d_grad", {0}, true, "input_shape", -1, nullptr, -1},
};

const SensitiveOp *sensitiveOp(const std::string &op) {
  for (const SensitiveOp &s : kSensitiveOps)
    if (op == s.op)
      return &s;
  return nullptr;
}

bool isStaticRank4(const Type &t) {
  return t.isTensor() && t.rank() == 4 && t.staticNumElements().has_value();
}

Shape permuted(const Shape &s, const std::vector<int64_t> &perm) {
  Shape out;
  for (int64_t p : perm)
    out.push_back(s[p]);
  return out;
}

Type permutedType(const Type &t, const std::vector<int64_t> &perm) {
  return Type::tensor(t.dtype(), permuted(t.shape(), perm));
}

/// True when `perm` moves only dims of size 1: the transpose is a reshape of contiguous data.
bool movesOnlyUnitDims(const Shape &s, const std::vector<int64_t> &perm) {
  std::vector<int64_t> order;
  for (int64_t p : perm)
    if (s[p].size() != 1)
      order.push_back(p);
  return std::is_sorted(order.begin(), order.end());
}

/// Elements a boundary transpose of a value of type `t` copies (0 when it is a reshape).
int64_t transposedElements(const Type &t, const std::vector<int64_t> &perm) {
  return movesOnlyUnitDims(t.shape(), perm) ? 0 : *t.staticNumElements();
}

/// The value `v` is `transpose(u, perm)` with nothing hanging on the transpose: its u, or null.
const ValueRef *transposeSource(const Graph &g, ValueRef v, const std::vector<int64_t> &perm) {
  const Node &n = g.node(v.node);
  const auto *p = n.attrAs<std::vector<int64_t>>("perm");
  if (n.op != "transpose" || !p || *p != perm || !n.controlInputs.empty())
    return nullptr;
  return &n.inputs[0];
}

/// A node's part in a chain.
struct Role {
  bool candidate = false;
  bool conv = false;            ///< a convolution that is faster in NHWC
  int64_t flops = 0;            ///< its FLOPs
  std::vector<unsigned> activations;
  bool activationResult = false;
};

class LayoutPass {
public:
  LayoutPass(Graph &g, PassContext &ctx)
      : g(g), ctx(ctx), uses(g.dataUses()), controlUses(g.controlUses()), placedAfter(g.numNodes()),
        cancelled(g.numNodes(), false) {}

  PassResult run() {
    for (const Node &n : g.nodes())
      roles.push_back(roleOf(n));
    bool changed = false;
    for (std::vector<NodeId> &chain : chains()) {
      std::vector<bool> in(g.numNodes(), false);
      for (NodeId id : chain)
        in[id] = true;
      peel(chain, in);
      int64_t flops = 0;
      for (NodeId id : chain)
        flops += roles[id].flops;
      if (flops <= kFlopsPerTransposedElement * boundaryElements(chain, in)) {
        ctx.count("chains-kept-nchw");
        continue;
      }
      rewrite(chain, in);
      ctx.count("chains-nhwc");
      ctx.count("nodes-nhwc", static_cast<int64_t>(chain.size()));
      changed = true;
    }
    if (!changed)
      return PassResult::Unchanged;
    // New nodes follow the node whose value they convert (printing and schedule ties);
    // cancelled transposes go.
    std::vector<NodeId> order;
    for (NodeId id = 0; id < placedAfter.size(); ++id) {
      order.push_back(id);
      order.insert(order.end(), placedAfter[id].begin(), placedAfter[id].end());
    }
    std::vector<bool> keep(order.size(), true);
    for (size_t k = 0; k < order.size(); ++k)
      keep[k] = !(order[k] < cancelled.size() && cancelled[order[k]]);
    renumberNodes(g, order);
    g.compact(keep);
    return PassResult::Changed;
  }

private:
  Graph &g;
  PassContext &ctx;
  std::vector<std::vector<Use>> uses;
  std::vector<std::vector<NodeId>> controlUses;
  std::vector<Role> roles;
  /// The nodes this pass made, by the node whose value they convert.
  std::vector<std::vector<NodeId>> placedAfter;
  /// Outside transposes to NHWC of a member's result, now reading the NHWC result itself.
  std::vector<bool> cancelled;

  Role sensitiveRole(const Node &n, const SensitiveOp &s) {
    Role r;
    const std::string *layout = n.attrAs<std::string>("layout");
    if ((layout && *layout != "NCHW") || n.results.size() != 1 || !isPure(n))
      return r;
    for (unsigned i : s.activations)
      if (i >= n.inputs.size() || !isStaticRank4(g.typeOf(n.inputs[i])))
        return r;
    if (s.activationResult && !isStaticRank4(n.results[0]))
      return r;
    if (s.weightOperand >= 0 || s.weightAttr) {
      const Shape *attrShape = s.weightAttr ? n.attrAs<Shape>(s.weightAttr) : nullptr;
      Shape w = attrShape ? *attrShape : g.typeOf(n.inputs[s.weightOperand]).shape();
      const Type &out = s.outputOperand < 0 ? n.results[0] : g.typeOf(n.inputs[s.outputOperand]);
      if (w.size() != 4 || !Type::tensor(out.dtype(), w).staticNumElements())
        return r;
      // A convolution that is slower in NHWC stays out of every chain (file comment).
      if (w[1].size() < kMinChannels)
        return r;
      r.conv = true;
      r.flops = 2 * *out.staticNumElements() * w[1].size() * w[2].size() * w[3].size();
    }
    r.candidate = true;
    r.activations = s.activations;
    r.activationResult = s.activationResult;
    return r;
  }

  /// Elementwise ops, zeros_like and sum_to: correct in any layout once every rank-4 operand
  /// and the result are permuted alike.
  Role agnosticRole(const Node &n) {
    Role r;
    const OpInfo *info = OpRegistry::get().lookup(n.op);
    bool elementwise = (info && info->elementwise) || n.op == "zeros_like";
    const Shape *target = n.attrAs<Shape>("shape");
    bool sumTo = n.op == "sum_to" && target && target->size() == 4;
    if (!(elementwise || sumTo) || !isPure(n) || n.results.size() != 1 ||
        !isStaticRank4(n.results[0]))
      return r;
    for (unsigned i = 0; i < n.inputs.size(); ++i) {
      const Type &t = g.typeOf(n.inputs[i]);
      if (isStaticRank4(t))
        r.activations.push_back(i);
      else if (!t.isTensor() || t.rank() != 0 || sumTo)
        return Role{};
    }
    r.candidate = !r.activations.empty();
    r.activationResult = true;
    return r;
  }

  Role roleOf(const Node &n) {
    if (const SensitiveOp *s = sensitiveOp(n.op))
      return sensitiveRole(n, *s);
    return agnosticRole(n);
  }

  /// Value `v` is an activation result of a member of `in`: it arrives in NHWC.
  bool fromMember(ValueRef v, const std::vector<bool> &in) const {
    return v.node < roles.size() && in[v.node] && roles[v.node].activationResult && v.port == 0;
  }

  bool readsAsActivation(NodeId user, unsigned operand) const {
    const std::vector<unsigned> &a = roles[user].activations;
    return std::find(a.begin(), a.end(), operand) != a.end();
  }

  /// A use of a member's result from outside the chain: a non-member, or a member reading it
  /// as a weight.
  bool outsideUse(const Use &u, const std::vector<bool> &in) const {
    return !in[u.user] || !readsAsActivation(u.user, u.operand);
  }

  /// An outside user that is itself `transpose(y, [0, 2, 3, 1])` with nothing hanging on it:
  /// it cancels (file comment).
  bool cancellingUser(const Use &u, const std::vector<bool> &in) const {
    return !in[u.user] && transposeSource(g, ValueRef{u.user, 0}, kToNhwc) &&
           controlUses[u.user].empty();
  }

  /// Connected components of candidates over activation edges, in node order, that hold a
  /// convolution.
  std::vector<std::vector<NodeId>> chains() {
    std::vector<NodeId> parent(g.numNodes());
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](NodeId x) {
      while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
      return x;
    };
    std::vector<bool> all(g.numNodes(), true);
    for (const Node &n : g.nodes())
      if (roles[n.id].candidate)
        for (unsigned i : roles[n.id].activations)
          if (roles[n.inputs[i].node].candidate && fromMember(n.inputs[i], all))
            parent[find(n.id)] = find(n.inputs[i].node);
    std::map<NodeId, std::vector<NodeId>> byRoot;
    for (const Node &n : g.nodes())
      if (roles[n.id].candidate)
        byRoot[find(n.id)].push_back(n.id);
    std::vector<std::vector<NodeId>> out;
    for (auto &[root, members] : byRoot)
      if (std::any_of(members.begin(), members.end(), [&](NodeId id) { return roles[id].conv; }))
        out.push_back(std::move(members));
    std::sort(out.begin(), out.end());
    return out;
  }

  /// Elements transposed at the boundary of the members marked in `in`, each value once.
  int64_t boundaryElements(const std::vector<NodeId> &chain, const std::vector<bool> &in) const {
    int64_t total = 0;
    std::vector<ValueRef> seen;
    for (NodeId id : chain) {
      if (!in[id])
        continue;
      for (unsigned i : roles[id].activations) {
        ValueRef v = g.node(id).inputs[i];
        if (fromMember(v, in) || transposeSource(g, v, kToNchw) ||
            std::find(seen.begin(), seen.end(), v) != seen.end())
          continue;
        seen.push_back(v);
        total += transposedElements(g.typeOf(v), kToNhwc);
      }
      if (roles[id].activationResult &&
          std::any_of(uses[id].begin(), uses[id].end(),
                      [&](const Use &u) { return outsideUse(u, in) && !cancellingUser(u, in); }))
        total += transposedElements(permutedType(g.node(id).results[0], kToNhwc), kToNchw);
    }
    return total;
  }

  // Step 3: drop non-convolution members while that does not grow the boundary.
  void peel(std::vector<NodeId> &chain, std::vector<bool> &in) const {
    int64_t cost = boundaryElements(chain, in);
    for (bool again = true; again;) {
      again = false;
      for (NodeId id : chain) {
        if (!in[id] || roles[id].conv)
          continue;
        in[id] = false;
        int64_t without = boundaryElements(chain, in);
        if (without <= cost) { // ties too: a pool's input side may only pay off one step later
          cost = without;
          again = true;
          continue;
        }
        in[id] = true;
      }
    }
    std::erase_if(chain, [&](NodeId id) { return !in[id]; });
  }

  /// A new node giving `v` in the layout `perm` makes: a reshape when only size-1 dims move.
  ValueRef relayout(ValueRef v, const std::vector<int64_t> &perm, FrameId frame, Location loc) {
    Type t = permutedType(g.typeOf(v), perm);
    bool reshape = movesOnlyUnitDims(g.typeOf(v).shape(), perm);
    Node &n = g.addNode(reshape ? "reshape" : "transpose", {v}, {t}, frame, loc);
    if (reshape)
      n.attrs["shape"] = t.shape();
    else
      n.attrs["perm"] = perm;
    ctx.count(reshape ? "reshapes" : "transposes");
    placedAfter[v.node].push_back(n.id);
    return Graph::value(n.id);
  }

  // Step 5.
  void rewrite(const std::vector<NodeId> &chain, const std::vector<bool> &in) {
    // Outside users of the members' results, read before any edit.
    std::vector<std::pair<NodeId, std::vector<Use>>> outside;
    for (NodeId id : chain) {
      std::vector<Use> need;
      if (roles[id].activationResult)
        std::copy_if(uses[id].begin(), uses[id].end(), std::back_inserter(need),
                     [&](const Use &u) { return outsideUse(u, in); });
      if (!need.empty())
        outside.emplace_back(id, std::move(need));
    }
    std::map<ValueRef, ValueRef> nhwc;
    for (NodeId id : chain)
      for (unsigned i : roles[id].activations) {
        ValueRef v = g.node(id).inputs[i];
        if (fromMember(v, in))
          continue;
        if (!nhwc.count(v)) {
          // transpose(transpose(u, [0, 3, 1, 2]), [0, 2, 3, 1]) -> u
          const ValueRef *u = transposeSource(g, v, kToNchw);
          nhwc[v] = u ? *u : relayout(v, kToNhwc, g.node(id).frame, g.node(id).loc);
          if (u)
            ctx.count("transposes-cancelled");
        }
        g.node(id).inputs[i] = nhwc[v];
      }
    for (NodeId id : chain)
      toNhwc(g.node(id));
    for (auto &[id, need] : outside) {
      std::optional<ValueRef> nchw;
      for (const Use &u : need) {
        // transpose(transpose(y, [0, 2, 3, 1]), [0, 3, 1, 2]) -> y
        if (cancellingUser(u, in)) {
          replaceAllUses(g, Graph::value(u.user), Graph::value(id));
          cancelled[u.user] = true;
          ctx.count("transposes-cancelled");
          continue;
        }
        if (!nchw)
          nchw = relayout(Graph::value(id), kToNchw, g.node(id).frame, g.node(id).loc);
        g.node(u.user).inputs[u.operand] = *nchw;
      }
    }
  }

  /// A member's own edit: the layout attribute, its activation shapes and result type.
  void toNhwc(Node &n) {
    if (const SensitiveOp *s = sensitiveOp(n.op)) {
      n.attrs["layout"] = std::string("NHWC");
      if (const Shape *shape = s->shapeAttr ? n.attrAs<Shape>(s->shapeAttr) : nullptr)
        n.attrs[s->shapeAttr] = permuted(*shape, kToNhwc);
    } else if (n.op == "sum_to") {
      n.attrs["shape"] = permuted(*n.attrAs<Shape>("shape"), kToNhwc);
    }
    if (roles[n.id].activationResult)
      n.results[0] = permutedType(n.results[0], kToNhwc);
  }
};

} // namespace

PassResult runLayout(Graph &g, PassContext &ctx) { return LayoutPass(g, ctx).run(); }

} // namespace dlm::opt
