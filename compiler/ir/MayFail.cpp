//===- compiler/ir/MayFail.cpp - Which graph nodes may raise a run-time error ===//
#include "compiler/ir/MayFail.h"

#include "compiler/ir/OpRegistry.h"

#include <algorithm>
#include <optional>
#include <string_view>

namespace dlm::graph {

bool isControlFlow(const Node &n) { return opHas(n.op, opflag::ControlFlow); }

static bool isStatic(const Type &t) { return !t.isTensor() || t.staticNumElements().has_value(); }

/// Ops that succeed whatever their operand shapes: forwarding (Identity, autodiff's `after`)
/// and metadata, a slice with constant steps (Python's slicing clamps its bounds; only a step
/// of 0 fails), and autodiff's stack reads and new stacks (every read matches a push of the
/// same loop).
static bool neverFails(const Node &n) {
  switch (n.op) {
  case OpKind::Identity:
  case OpKind::After:
  case OpKind::Const:
  case OpKind::ShapeOf:
  case OpKind::Transpose:
  case OpKind::StackNew:
  case OpKind::StackTop:
  case OpKind::StackPop:
  case OpKind::StackTail:
  case OpKind::StackDrop:
    return true;
  default:
    break;
  }
  if (n.op != OpKind::Slice)
    return false;
  const auto *steps = n.attrAs<std::vector<int64_t>>("step");
  return steps && std::find(steps->begin(), steps->end(), kDynamicIndex) == steps->end();
}

/// An autodiff stack push fails only when the saved value changes shape between iterations,
/// which a value of static shape cannot (for stack_extend: its entries, the dims after the
/// first).
static bool pushMayChangeShape(const Graph &g, const Node &n) {
  const Type &entries = g.typeOf(n.inputs[1]);
  if (n.op == OpKind::StackPush)
    return !isStatic(entries);
  return !entries.isTensor() || entries.rank() == 0 ||
         std::any_of(entries.shape().begin() + 1, entries.shape().end(),
                     [](const Dim &d) { return d.isSymbolic(); });
}

/// The value of an integer constant node, else null.
static const int64_t *constantInt(const Node &n) {
  return n.op == OpKind::Const ? n.attrAs<int64_t>("value") : nullptr;
}

/// Integer floordiv, mod and div fail on a zero divisor and integer pow on a negative
/// exponent: not when that operand is a constant that rules it out.
static bool integerArithmeticMayFail(const Graph &g, const Node &n) {
  bool division = n.op == OpKind::Floordiv || n.op == OpKind::Mod || n.op == OpKind::Div;
  if ((!division && n.op != OpKind::Pow) || n.results.empty() || !n.results[0].isTensor() ||
      isFloat(n.results[0].dtype()))
    return false;
  const Node &c = g.node(n.inputs[1].node);
  const int64_t *i = constantInt(c);
  const double *f = c.op == OpKind::Const ? c.attrAs<double>("value") : nullptr;
  if (!i && !f)
    return true;
  double v = i ? double(*i) : *f;
  return division ? v == 0.0 : v < 0.0;
}

/// Whether broadcasting `n`'s operands can fail at run time: at some position (aligned from
/// the right) a run-time dim meets another operand's dim that is not a static 1. A 0-d operand
/// and a single tensor operand always broadcast.
static bool broadcastMayFail(const Graph &g, const Node &n) {
  size_t rank = 0;
  for (const ValueRef &in : n.inputs)
    if (const Type &t = g.typeOf(in); t.isTensor())
      rank = std::max(rank, t.rank());
  for (size_t k = 1; k <= rank; ++k) {
    int symbolic = 0, sized = 0;
    std::optional<int64_t> size;
    for (const ValueRef &in : n.inputs) {
      const Type &t = g.typeOf(in);
      if (!t.isTensor() || t.rank() < k)
        continue;
      const Dim &d = t.shape()[t.rank() - k];
      if (d.isSymbolic()) {
        ++symbolic;
      } else if (d.size() != 1) {
        if (size && *size != d.size())
          return true;
        size = d.size();
        ++sized;
      }
    }
    if (symbolic > 0 && symbolic + sized > 1)
      return true;
  }
  return false;
}

/// matmul of operands of rank 1 or 2 (no batch dims to broadcast) whose contracted dims are
/// static and equal cannot fail, whatever its other dims: the contraction is the only check
/// left to run time (a layer's `h @ w` on a batch of run-time rows).
static bool matmulMayFail(const Graph &g, const Node &n) {
  const Type &a = g.typeOf(n.inputs[0]), &b = g.typeOf(n.inputs[1]);
  if (!a.isTensor() || !b.isTensor() || a.rank() == 0 || b.rank() == 0 || a.rank() > 2 ||
      b.rank() > 2)
    return true;
  const Dim &k1 = a.shape().back(), &k2 = b.shape()[b.rank() == 1 ? 0 : b.rank() - 2];
  return !k1.isStatic() || k1 != k2;
}

/// index(x, i) that stays inside x's static dim: a constant i (lowering's `x.shape[k]` is
/// index(shape_of(x), k)), a counter i whose range is inside, or `j % c` for a constant
/// 0 < c <= the dim (the modulo takes the divisor's sign, so 0 <= j % c < c: `xs[it % 8]`
/// cycling through batches).
static bool indexInRange(const Graph &g, const Node &n, const IntRanges *counters) {
  const int64_t *axis = n.attrAs<int64_t>("axis");
  const Type &x = g.typeOf(n.inputs[0]);
  if (!axis || !x.isTensor() || *axis < 0 || size_t(*axis) >= x.rank() ||
      !x.shape()[*axis].isStatic())
    return false;
  int64_t size = x.shape()[*axis].size();
  const Node &i = g.node(n.inputs[1].node);
  if (const int64_t *value = constantInt(i))
    return *value >= -size && *value < size;
  if (counters && counters->count(n.inputs[1])) {
    auto [lo, hi] = counters->at(n.inputs[1]);
    return lo >= -size && hi < size;
  }
  if (i.op != OpKind::Mod)
    return false;
  const int64_t *divisor = constantInt(g.node(i.inputs[1].node));
  return divisor && *divisor > 0 && *divisor <= size;
}

bool mayFail(const Graph &g, const Node &n, const IntRanges *counters) {
  const OpInfo *info = &n.info();
  if (isControlFlow(n) || neverFails(n))
    return false;
  if (n.op == OpKind::StackPush || n.op == OpKind::StackExtend)
    return pushMayChangeShape(g, n);
  if (info->elementwise)
    return integerArithmeticMayFail(g, n) || broadcastMayFail(g, n);
  if (n.op == OpKind::Matmul)
    return matmulMayFail(g, n);
  for (const Type &t : n.results)
    if (!isStatic(t))
      return true;
  for (const ValueRef &in : n.inputs)
    if (!isStatic(g.typeOf(in)))
      return true;
  if (n.op == OpKind::Index)
    return !indexInRange(g, n, counters);
  return !info->has(opflag::FailsOnlyOnShapes);
}

} // namespace dlm::graph
