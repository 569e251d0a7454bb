//===- compiler/opt/Layout.cpp - NCHW -> NHWC for conv chains when it pays -===//
//
// The language's images are NCHW. The CPU convolutions are im2col + GEMM, and for wide layers
// the NHWC form is faster: its im2col rows are contiguous runs of C channels and the GEMM writes
// the NHWC output directly (kernels/cpu/NN.cpp). This pass moves chains of convolutions,
// pooling, bias, elementwise ops and their gradients to NHWC (the `layout` attribute of the conv
// and pool ops), with transposes only at the chain's boundaries, when a cost rule measured on
// this CPU says that pays.
//
// Cost rule, in elements transposed (bench/RESULTS.md "Layout: NCHW vs NHWC", one thread):
//   - a convolution runs natively in one layout chosen by its geometry (kernels/cpu/NN.cpp
//     runsNhwc, repeated in runsNhwc below): NHWC for a kernel larger than 1x1 with at least 32
//     output channels and 64 im2col columns, where its GEMMs are 1.2-1.5x faster; else NCHW. In
//     the other layout it transposes its activations in and out around the native code, so the
//     results are the same bits in both layouts and a layout change costs or saves exactly those
//     transposes (~0.4 ns per element, one strided copy);
//   - pooling and elementwise ops take the same time in either layout;
//   - a boundary transpose costs its elements; one that moves only size-1 dims (C = 1 images,
//     [1, C, 1, 1] biases) is a free reshape.
//   So a chain goes NHWC when the transposes its native-NHWC convolutions save outnumber the
//   elements transposed at its boundary. A native-NCHW convolution never joins a chain.
//
// Algorithm:
//   1. Candidates: conv and pool ops (and their gradients) in NCHW with static rank-4 activations
//      — convolutions only where they run natively in NHWC; pure elementwise ops and zeros_like
//      whose operands are scalars or static rank 4; sum_to to a rank-4 shape.
//   2. Chains: candidates joined by activation edges (union-find; a weight or a weight gradient
//      is not an activation). Chains without a convolution stay as they are.
//   3. Peel: a chain drops a non-convolution member (alone, or with the members downstream of
//      it and those reading the same outside values) while that does not grow its boundary
//      elements, so transposes land on the smaller side of a relu + pool and their gradients.
//   4. Decide by the cost rule; a chain that does not pay keeps NCHW (counted as kept-nchw).
//   5. Rewrite: members take layout = "NHWC" (input_shape and sum_to shapes permuted, result
//      types permuted); activation operands from outside the chain get transpose(perm = [0, 2,
//      3, 1]), users outside get transpose(perm = [0, 3, 1, 2]), each made once per value.
//      Transpose pairs cancel as they would form (also in the gradient graph):
//        transpose(transpose(u, [0, 3, 1, 2]), [0, 2, 3, 1]) -> u   (a chain's NHWC input)
//        transpose(transpose(y, [0, 2, 3, 1]), [0, 3, 1, 2]) -> y   (a user of its output)
//      The cancelled outside transposes go; an inside one may still have other users (dce).
//
// Requires: a verified graph  Preserves: frames, deadness, results (bit for bit)
// Invalidates: node ids
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"

#include "compiler/ir/OpRegistry.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>

namespace dlm::opt {

using namespace graph;

namespace {

const std::vector<int64_t> kToNhwc = {0, 2, 3, 1}, kToNchw = {0, 3, 1, 2};
/// kernels/cpu/NN.cpp's rule for the layout a convolution runs in natively (file comment), on
/// its weight shape [O, C, KH, KW].
bool runsNhwc(const Shape &w) {
  int64_t o = w[0].size(), c = w[1].size(), kh = w[2].size(), kw = w[3].size();
  return o >= 32 && kh * kw > 1 && c * kh * kw >= 64;
}

/// How a layout-sensitive op reads its operands: which are activations (NCHW images and their
/// gradients; conv2d_bias's bias too), whether its result is one, which shape attribute describes
/// an activation, and where its weight's shape is (operand or attribute) if it is a convolution.
struct SensitiveOp {
  OpKind op;
  std::vector<unsigned> activations;
  bool activationResult;
  const char *shapeAttr;
  int weightOperand;      ///< -1: not a convolution, or the weight comes from weightAttr
  const char *weightAttr; ///< conv2d_grad_weight's weight_shape
};

const SensitiveOp kSensitiveOps[] = {
    {OpKind::Conv2d, {0}, true, nullptr, 1, nullptr},
    {OpKind::Conv2dBias, {0, 2}, true, nullptr, 1, nullptr},
    {OpKind::Conv2dGradInput, {0}, true, "input_shape", 1, nullptr},
    {OpKind::Conv2dGradWeight, {0, 1}, false, nullptr, -1, "weight_shape"},
    {OpKind::MaxPool2d, {0}, true, nullptr, -1, nullptr},
    {OpKind::AvgPool2d, {0}, true, nullptr, -1, nullptr},
    {OpKind::MaxPool2dGrad, {0, 1}, true, nullptr, -1, nullptr},
    {OpKind::AvgPool2dGrad, {0}, true, "input_shape", -1, nullptr},
};

const SensitiveOp *sensitiveOp(OpKind op) {
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
  if (n.op != OpKind::Transpose || !p || *p != perm || !n.controlInputs.empty())
    return nullptr;
  return &n.inputs[0];
}

/// A node's part in a chain.
struct Role {
  bool candidate = false;
  bool conv = false; ///< a convolution that runs natively in NHWC
  int64_t saved = 0; ///< the elements it transposes in NCHW and not in NHWC
  std::vector<unsigned> activations;
  bool activationResult = false;
};

class LayoutPass : GraphRewrite {
public:
  LayoutPass(Graph &g, PassContext &ctx)
      : GraphRewrite(g, ctx), placedAfter(g.numNodes()), cancelled(g.numNodes(), false) {}

  PassResult run() {
    for (const Node &n : g.nodes())
      roles.push_back(roleOf(n));
    bool changed = false;
    for (std::vector<NodeId> &chain : chains()) {
      std::vector<bool> in(g.numNodes(), false);
      for (NodeId id : chain)
        in[id] = true;
      peel(chain, in);
      int64_t saved = 0;
      for (NodeId id : chain)
        saved += roles[id].saved;
      if (saved <= boundaryElements(chain, in)) {
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
      if (w.size() != 4 || !Type::tensor(DType::F32, w).staticNumElements())
        return r;
      // A convolution that runs natively in NCHW stays out of every chain (file comment).
      if (!runsNhwc(w))
        return r;
      r.conv = true;
      for (unsigned i : s.activations)
        r.saved += i == 2 ? 0 : *g.typeOf(n.inputs[i]).staticNumElements(); // not the bias
      if (s.activationResult)
        r.saved += *n.results[0].staticNumElements();
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
    bool elementwise = n.info().elementwise || n.op == OpKind::ZerosLike;
    const Shape *target = n.attrAs<Shape>("shape");
    bool sumTo = n.op == OpKind::SumTo && target && target->size() == 4;
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

  /// `id` and, transitively, the non-convolution members that read its results or read a value
  /// a group member reads from outside the chain: a backward tail (a relu's and a pool's
  /// gradients feeding a convolution outside) only leaves whole.
  std::vector<NodeId> peelGroup(NodeId id, const std::vector<NodeId> &chain,
                                const std::vector<bool> &in) const {
    std::vector<NodeId> group = {id};
    auto add = [&](NodeId m) {
      if (in[m] && !roles[m].conv && std::find(group.begin(), group.end(), m) == group.end())
        group.push_back(m);
    };
    for (size_t k = 0; k < group.size(); ++k) {
      for (const Use &u : uses[group[k]])
        add(u.user);
      for (unsigned i : roles[group[k]].activations) {
        ValueRef v = g.node(group[k]).inputs[i];
        if (fromMember(v, in))
          continue;
        for (NodeId m : chain)
          for (unsigned j : roles[m].activations)
            if (g.node(m).inputs[j] == v)
              add(m);
      }
    }
    return group;
  }

  // Step 3: drop non-convolution members, alone or with their peelGroup, while that does not
  // grow the boundary (ties too: a relu's output side may
  // only pay off one step later, at its pool).
  void peel(std::vector<NodeId> &chain, std::vector<bool> &in) const {
    int64_t cost = boundaryElements(chain, in);
    auto tryWithout = [&](const std::vector<NodeId> &group) {
      for (NodeId m : group)
        in[m] = false;
      int64_t without = boundaryElements(chain, in);
      if (without <= cost) {
        cost = without;
        return true;
      }
      for (NodeId m : group)
        in[m] = true;
      return false;
    };
    for (bool again = true; again;) {
      again = false;
      for (NodeId id : chain)
        if (in[id] && !roles[id].conv)
          again |= tryWithout({id}) || tryWithout(peelGroup(id, chain, in));
    }
    std::erase_if(chain, [&](NodeId id) { return !in[id]; });
  }

  /// A new node giving `v` in the layout `perm` makes: a reshape when only size-1 dims move.
  ValueRef relayout(ValueRef v, const std::vector<int64_t> &perm, FrameId frame, Location loc) {
    Type t = permutedType(g.typeOf(v), perm);
    bool reshape = movesOnlyUnitDims(g.typeOf(v).shape(), perm);
    Node &n = g.addNode(reshape ? OpKind::Reshape : OpKind::Transpose, {v}, {t}, frame, loc);
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
    } else if (n.op == OpKind::SumTo) {
      n.attrs["shape"] = permuted(*n.attrAs<Shape>("shape"), kToNhwc);
    }
    if (roles[n.id].activationResult)
      n.results[0] = permutedType(n.results[0], kToNhwc);
  }
};

} // namespace

PassResult runLayout(Graph &g, PassContext &ctx) { return LayoutPass(g, ctx).run(); }

} // namespace dlm::opt
