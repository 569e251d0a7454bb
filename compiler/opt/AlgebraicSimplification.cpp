//===- compiler/opt/AlgebraicSimplification.cpp - Algebraic identities ----===//
//
// Algebraic simplification: rewrites a pure node by an identity that holds for every value the
// program can compute, so results stay bit-for-bit the same (docs/opt.md lists the two that do
// not: log(exp x) and exp(log x) are exact in real arithmetic, and more accurate than the
// unsimplified float expression). Identities that fail on some floats are applied only where
// they hold: x + 0 -> x only for integers (-0.0 + 0.0 is +0.0), x * 0 -> 0 and x - x -> 0 only
// for integers (NaN and inf), exp(log x) -> x only when x is provably non-negative.
//
// Algorithm:
//   1. Walk the nodes in topological order.
//   2. Try the rules below in order on each pure node; a rule either forwards the node's users
//      to an existing value (GraphUtil forwardValue keeps the node's deadness when the value
//      has less) or rewrites the node in place. Repeat on the node while a rule fires.
//   3. Leave the bypassed nodes for `dce` to remove.
// A rule applies only when the value it forwards has exactly the node's result type (an
// identity under broadcasting or dtype promotion would change the result's shape or dtype).
//
// Requires: a verified graph  Preserves: node ids, frames  Invalidates: nothing
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"

#include <algorithm>
#include <numeric>

namespace dlm::opt {

using namespace graph;

namespace {

const Node &producer(const Graph &g, ValueRef v) { return g.node(v.node); }

bool isInteger(const Type &t) {
  return t.isTensor() && (t.dtype() == DType::I64 || t.dtype() == DType::I32);
}

/// When operand `k` of binary `n` is a constant splat of `value` and the other operand has n's
/// type, forwards n to the other operand.
bool forwardIfSplat(Graph &g, NodeId id, unsigned k, double value) {
  const Node &n = g.node(id);
  if (n.inputs.size() != 2)
    return false;
  const Node &c = producer(g, n.inputs[k]);
  ValueRef x = n.inputs[1 - k];
  if (!isSplatConstant(c, value) || g.typeOf(x) != n.results[0])
    return false;
  std::vector<NodeId> lost = n.controlInputs;
  lost.insert(lost.end(), c.controlInputs.begin(), c.controlInputs.end());
  forwardValue(g, id, x, std::move(lost));
  return true;
}

// x * 1 -> x, 1 * x -> x
bool mulByOne(Graph &g, NodeId id) {
  return g.node(id).op == OpKind::Mul &&
         (forwardIfSplat(g, id, 1, 1.0) || forwardIfSplat(g, id, 0, 1.0));
}

// x / 1 -> x, x ** 1 -> x
bool divOrPowByOne(Graph &g, NodeId id) {
  OpKind op = g.node(id).op;
  return (op == OpKind::Div || op == OpKind::Pow) && forwardIfSplat(g, id, 1, 1.0);
}

// x - 0 -> x; x + 0 -> x, 0 + x -> x (integers: for floats -0.0 + 0.0 is +0.0)
bool addZero(Graph &g, NodeId id) {
  const Node &n = g.node(id);
  if (n.op == OpKind::Sub)
    return forwardIfSplat(g, id, 1, 0.0);
  if (n.op != OpKind::Add || !isInteger(n.results[0]))
    return false;
  return forwardIfSplat(g, id, 1, 0.0) || forwardIfSplat(g, id, 0, 0.0);
}

// x - x -> 0, x * 0 -> 0 (integers with a static shape: no NaN or inf to preserve)
bool integerZero(Graph &g, NodeId id) {
  Node &n = g.node(id);
  const Type &t = n.results.empty() ? Type::error() : n.results[0];
  if (!isInteger(t) || !t.staticNumElements() || n.inputs.size() != 2)
    return false;
  bool zero = (n.op == OpKind::Sub && n.inputs[0] == n.inputs[1]) ||
              (n.op == OpKind::Mul && (isSplatConstant(producer(g, n.inputs[0]), 0.0) ||
                                       isSplatConstant(producer(g, n.inputs[1]), 0.0)));
  if (!zero || *t.staticNumElements() > 256)
    return false;
  // The constant must stay dead where n was: it hangs from n's operands' producers.
  std::vector<NodeId> deps = n.controlInputs;
  for (const ValueRef &in : n.inputs) {
    const Node &p = producer(g, in);
    if (p.op == OpKind::Switch)
      return false;
    if (p.op == OpKind::Const)
      deps.insert(deps.end(), p.controlInputs.begin(), p.controlInputs.end());
    else
      deps.push_back(in.node);
  }
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  n.op = OpKind::Const;
  n.inputs.clear();
  n.controlInputs = std::move(deps);
  n.attrs = {{"value", std::vector<double>(*t.staticNumElements(), 0.0)},
             {"shape", t.shape()},
             {"dtype", t.dtype()}};
  return true;
}

/// When n = op(inner(x)) and x has n's type, forwards n to x.
bool cancelPair(Graph &g, NodeId id, OpKind op, OpKind inner) {
  const Node &n = g.node(id);
  if (n.op != op || n.inputs.size() != 1)
    return false;
  const Node &m = producer(g, n.inputs[0]);
  if (m.op != inner || m.inputs.size() != 1 || g.typeOf(m.inputs[0]) != n.results[0])
    return false;
  std::vector<NodeId> lost = n.controlInputs;
  lost.insert(lost.end(), m.controlInputs.begin(), m.controlInputs.end());
  forwardValue(g, id, m.inputs[0], std::move(lost));
  return true;
}

// neg(neg(x)) -> x
bool doubleNegation(Graph &g, NodeId id) { return cancelPair(g, id, OpKind::Neg, OpKind::Neg); }

// log(exp(x)) -> x
bool logOfExp(Graph &g, NodeId id) { return cancelPair(g, id, OpKind::Log, OpKind::Exp); }

/// Ops whose results are never negative (so log then exp gives them back, 0 and inf included).
bool isNonNegative(const Node &n) { return opHas(n.op, opflag::NonNegative); }

// exp(log(x)) -> x when x >= 0 by construction (NonNegative: exp, sigmoid, softmax, relu, ...)
bool expOfLog(Graph &g, NodeId id) {
  const Node &n = g.node(id);
  if (n.op != OpKind::Exp || producer(g, n.inputs[0]).op != OpKind::Log)
    return false;
  const Node &m = producer(g, n.inputs[0]);
  return isNonNegative(producer(g, m.inputs[0])) && cancelPair(g, id, OpKind::Exp, OpKind::Log);
}

/// Moves `inner`'s control inputs onto `n` (n stops reading inner but must die with it).
void inheritControls(Graph &g, NodeId n, NodeId inner) {
  for (NodeId c : std::vector<NodeId>(g.node(inner).controlInputs))
    g.addControlInput(n, c);
}

// transpose(transpose(x, p), q) -> transpose(x, p∘q), or x when that is the identity
bool transposeChain(Graph &g, NodeId id) {
  const Node &n = g.node(id);
  if (n.op != OpKind::Transpose || producer(g, n.inputs[0]).op != OpKind::Transpose)
    return false;
  const Node &m = producer(g, n.inputs[0]);
  const auto *p = m.attrAs<std::vector<int64_t>>("perm");
  const auto *q = n.attrAs<std::vector<int64_t>>("perm");
  if (!p || !q || p->size() != q->size())
    return false;
  std::vector<int64_t> composed;
  for (int64_t i : *q)
    composed.push_back((*p)[i]);
  bool identity = true;
  for (size_t i = 0; i < composed.size(); ++i)
    identity = identity && composed[i] == static_cast<int64_t>(i);
  ValueRef x = m.inputs[0];
  if (identity && g.typeOf(x) == n.results[0]) {
    std::vector<NodeId> lost = n.controlInputs;
    lost.insert(lost.end(), m.controlInputs.begin(), m.controlInputs.end());
    forwardValue(g, id, x, std::move(lost));
    return true;
  }
  NodeId inner = m.id;
  Node &w = g.node(id);
  w.inputs[0] = x;
  w.attrs["perm"] = composed;
  inheritControls(g, id, inner);
  return true;
}

/// `perm` swaps the last two of `rank` axes and keeps the others.
bool swapsLastTwo(const std::vector<int64_t> &perm, size_t rank) {
  if (rank < 2 || perm.size() != rank)
    return false;
  for (size_t i = 0; i + 2 < rank; ++i)
    if (perm[i] != static_cast<int64_t>(i))
      return false;
  return perm[rank - 2] == static_cast<int64_t>(rank) - 1 &&
         perm[rank - 1] == static_cast<int64_t>(rank) - 2;
}

/// `v` with its last two axes swapped, in `frame` and hanging from `controls`: the operand of
/// `v`'s producer when that is such a transpose (no new node), else a new transpose.
ValueRef matrixTransposeOf(Graph &g, ValueRef v, FrameId frame, Location loc,
                           const std::vector<NodeId> &controls) {
  const Node &p = g.node(v.node);
  size_t rank = g.typeOf(v).rank();
  const auto *perm = p.attrAs<std::vector<int64_t>>("perm");
  if (p.op == OpKind::Transpose && perm && swapsLastTwo(*perm, rank) && p.controlInputs.empty())
    return p.inputs[0];
  std::vector<int64_t> swap(rank);
  std::iota(swap.begin(), swap.end(), 0);
  std::swap(swap[rank - 2], swap[rank - 1]);
  Shape shape = g.typeOf(v).shape();
  std::swap(shape[rank - 2], shape[rank - 1]);
  Type t = Type::tensor(g.typeOf(v).dtype(), std::move(shape));
  Node &n = g.addNode(OpKind::Transpose, {v}, {std::move(t)}, frame, loc);
  n.attrs["perm"] = std::move(swap);
  n.controlInputs = controls;
  return Graph::value(n.id);
}

// transpose(matmul(a, b)) -> matmul(transpose(b), transpose(a)), the transposes swapping the
// last two axes (autodiff's gradient of `x @ w.T` with respect to w is transpose(x.T @ dz)):
// the product comes out dense in the layout its reader wants, instead of as a transposed view
// that an elementwise reader (a gradient accumulator, an SGD update) copies dense, and the
// transposes of the operands cancel with theirs or are views a GEMM reads through its
// transpose flags. Every element is the same sum of the same products (IEEE multiplication
// commutes), so the small-matrix path gives the same bits. Only for operands of rank >= 2 with
// static shapes (a product of run-time shapes may fail, and must fail with its own message)
// and a product read by nothing else.
bool transposeOfProduct(Graph &g, NodeId id) {
  const Node &n = g.node(id);
  const auto *perm = n.attrAs<std::vector<int64_t>>("perm");
  if (n.op != OpKind::Transpose || !perm || !swapsLastTwo(*perm, n.results[0].rank()))
    return false;
  const Node &m = producer(g, n.inputs[0]);
  if (m.op != OpKind::Matmul || m.inputs.size() != 2 || m.frame != n.frame)
    return false;
  for (const ValueRef &in : m.inputs) {
    const Type &t = g.typeOf(in);
    if (t.rank() < 2 || t.rank() != n.results[0].rank() || !t.staticNumElements())
      return false;
  }
  for (const Node &user : g.nodes()) {
    if (user.id != id && std::find(user.controlInputs.begin(), user.controlInputs.end(), m.id) !=
                             user.controlInputs.end())
      return false;
    for (const ValueRef &in : user.inputs)
      if (in.node == m.id && user.id != id)
        return false;
  }
  NodeId product = m.id;
  ValueRef a = m.inputs[0], b = m.inputs[1];
  std::vector<NodeId> controls = m.controlInputs;
  FrameId frame = n.frame;
  Location loc = n.loc;
  ValueRef tb = matrixTransposeOf(g, b, frame, loc, controls);
  ValueRef ta = matrixTransposeOf(g, a, frame, loc, controls);
  Node &w = g.node(id);
  w.op = OpKind::Matmul;
  w.inputs = {tb, ta};
  w.attrs.clear();
  inheritControls(g, id, product);
  return true;
}

// reshape(reshape(x, ...), s) -> reshape(x, s); reshape(x, s) -> x when x already has shape s
bool reshapeChain(Graph &g, NodeId id) {
  const Node &n = g.node(id);
  if (n.op != OpKind::Reshape)
    return false;
  const Node &m = producer(g, n.inputs[0]);
  if (m.op == OpKind::Reshape) {
    NodeId inner = m.id;
    ValueRef x = m.inputs[0];
    g.node(id).inputs[0] = x;
    inheritControls(g, id, inner);
    return true;
  }
  const Type &t = n.results[0];
  if (n.inputs.size() != 1 || !t.staticNumElements() || g.typeOf(n.inputs[0]) != t)
    return false;
  forwardValue(g, id, n.inputs[0], n.controlInputs);
  return true;
}

bool isIdentityPermutation(const Node &n) {
  const auto *perm = n.attrAs<std::vector<int64_t>>("perm");
  for (size_t i = 0; perm && i < perm->size(); ++i)
    if ((*perm)[i] != static_cast<int64_t>(i))
      return false;
  return perm != nullptr;
}

// broadcast_to(x, s) -> x, cast(x, t) -> x, transpose(x, identity) -> x, Identity(x) -> x when
// nothing changes
bool noOpConversion(Graph &g, NodeId id) {
  const Node &n = g.node(id);
  bool candidate = n.op == OpKind::BroadcastTo || n.op == OpKind::Cast ||
                   n.op == OpKind::Identity ||
                   (n.op == OpKind::Transpose && isIdentityPermutation(n));
  if (!candidate || n.inputs.size() != 1 || n.results.size() != 1)
    return false;
  const Type &t = n.results[0];
  // broadcast_to with run-time dims may still broadcast: only static shapes prove it does not.
  if (g.typeOf(n.inputs[0]) != t || (n.op == OpKind::BroadcastTo && !t.staticNumElements()))
    return false;
  forwardValue(g, id, n.inputs[0], n.controlInputs);
  return true;
}

// x ** 2 -> x * x
bool squareByMultiply(Graph &g, NodeId id) {
  const Node &n = g.node(id);
  if (n.op != OpKind::Pow || !isSplatConstant(producer(g, n.inputs[1]), 2.0) ||
      g.typeOf(n.inputs[0]) != n.results[0])
    return false;
  NodeId two = n.inputs[1].node;
  Node &w = g.node(id);
  w.op = OpKind::Mul;
  w.inputs[1] = w.inputs[0];
  inheritControls(g, id, two);
  return true;
}

// x * -1 -> neg(x), -1 * x -> neg(x)
bool mulByMinusOne(Graph &g, NodeId id) {
  const Node &n = g.node(id);
  if (n.op != OpKind::Mul)
    return false;
  for (unsigned k = 0; k < 2; ++k) {
    const Node &c = producer(g, n.inputs[k]);
    ValueRef x = n.inputs[1 - k];
    if (!isSplatConstant(c, -1.0) || g.typeOf(x) != n.results[0])
      continue;
    NodeId minusOne = c.id;
    Node &w = g.node(id);
    w.op = OpKind::Neg;
    w.inputs = {x};
    inheritControls(g, id, minusOne);
    return true;
  }
  return false;
}

using Rule = bool (*)(Graph &, NodeId);

const Rule kRules[] = {mulByOne,          divOrPowByOne,  addZero,          integerZero,
                       doubleNegation,    logOfExp,       expOfLog,         transposeChain,
                       reshapeChain,      noOpConversion, squareByMultiply, mulByMinusOne,
                       transposeOfProduct};

/// A forwarded node is left with no data users (or as an Identity with control inputs); rules
/// must not fire on it again.
bool isBypassed(const Graph &g, NodeId id) {
  if (g.node(id).op == OpKind::Identity && !g.node(id).controlInputs.empty())
    return true;
  for (const Node &user : g.nodes())
    for (const ValueRef &in : user.inputs)
      if (in.node == id)
        return false;
  return true;
}

} // namespace

PassResult runAlgebraicSimplification(Graph &g, PassContext &ctx) {
  std::optional<std::vector<NodeId>> order = g.topologicalOrder();
  if (!order)
    return PassResult::Unchanged;
  std::vector<std::vector<Use>> uses = g.dataUses();
  bool changed = false;
  for (NodeId id : *order) {
    if (uses[id].empty()) // dead already: leave it to dce
      continue;
    // A node may simplify repeatedly (transpose chains of three); each rule shrinks the graph
    // or the node, so this ends.
    for (unsigned round = 0; round < 8 && isPure(g.node(id)); ++round) {
      auto fired = std::find_if(std::begin(kRules), std::end(kRules),
                                [&](Rule rule) { return rule(g, id); });
      if (fired == std::end(kRules))
        break;
      ctx.count("rewrites");
      changed = true;
      if (isBypassed(g, id))
        break;
    }
  }
  return changed ? PassResult::Changed : PassResult::Unchanged;
}

} // namespace dlm::opt
