//===- compiler/opt/ConstantFolding.cpp - Evaluate constant nodes now -----===//
//
// Constant folding: a pure node whose data inputs are all `const` nodes is evaluated at compile
// time with the runtime's own CPU kernels (the same code the executor runs, so the folded value
// is bit-identical to what the program would compute) and becomes a `const`. Side effects,
// random draws, stacks and control-flow primitives are never folded (GraphUtil isPure); neither
// is a node whose evaluation fails — the run-time error (an index out of range, a shape with
// too many elements) must still happen when and if the program reaches it.
//
// Algorithm:
//   1. Walk the nodes in topological order, so a folded node's users see it as a constant.
//   2. Skip nodes that are not pure, have no data inputs (zeros(2, 3) stays small in the IR),
//      have other than one tensor result, or read a non-constant.
//   3. Evaluate: the input constants through the `const` kernel, the node through its kernel.
//   4. Keep the result only when it has at most kMaxFoldedElements elements and every value is
//      exact as a double (i64 within 2^53, no NaN), since .dlmir constants are written as doubles.
//      The result is converted to the node's declared dtype, and a shape that contradicts the
//      declared one is not folded: folding never changes a node's type.
//   5. Rewrite the node in place into `const`; its control inputs become its own plus those of
//      the constants it read, so it is dead exactly when it was (a branch not taken).
//
// Requires: a verified graph  Preserves: node ids, frames  Invalidates: nothing
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"

#include "compiler/ir/OpRegistry.h"
#include "compiler/ir/RuntimeAttrs.h"
#include "runtime/Error.h"
#include "runtime/Kernel.h"

#include <algorithm>
#include <cmath>

namespace dlm::opt {

using namespace graph;

namespace {

/// Folded tensors larger than this stay computed at run time (the IR would grow instead).
constexpr int64_t kMaxFoldedElements = 256;

/// Runs `n` on `inputs` with the CPU kernel; nullopt on any failure.
std::optional<rt::Tensor> evaluate(const Node &n, const std::vector<rt::Value> &inputs) {
  const std::string &kernel = opString(n.op); // kernels are named after their op (docs/ops.md)
  if (!rt::findKernel(kernel, rt::Device::CPU))
    return std::nullopt;
  std::vector<rt::Value> outs;
  rt::Status status =
      rt::callKernel(kernel, std::span<const rt::Value>(inputs), runtimeAttrs(n), outs);
  if (!status || outs.size() != 1 || !outs[0].isTensor())
    return std::nullopt;
  return outs[0].tensor();
}

/// The tensor's elements as doubles, or nullopt when one is not exact as a double.
std::optional<std::vector<double>> elementsOf(const rt::Tensor &t) {
  std::vector<rt::Value> outs;
  rt::Attrs toF64;
  toF64.set("dtype", DType::F64);
  if (!rt::callKernel(opName(OpKind::Cast), {rt::Value(t)}, toF64, outs))
    return std::nullopt;
  rt::Tensor f = outs[0].tensor().contiguous();
  std::vector<double> values(f.data<double>(), f.data<double>() + f.numel());
  // NaN has no sign-preserving .dlmir spelling (the printed graph must parse back).
  if (std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); }))
    return std::nullopt;
  if (t.dtype() == DType::I64 && std::any_of(values.begin(), values.end(), [](double v) {
        return std::fabs(v) > 9007199254740992.0;
      }))
    return std::nullopt;
  return values;
}

/// `t` converted to `dtype` with the cast kernel; nullopt on failure.
std::optional<rt::Tensor> castTo(const rt::Tensor &t, DType dtype) {
  if (t.dtype() == dtype)
    return t;
  std::vector<rt::Value> outs;
  rt::Attrs attrs;
  attrs.set("dtype", dtype);
  if (!rt::callKernel(opName(OpKind::Cast), {rt::Value(t)}, attrs, outs) || outs.size() != 1 ||
      !outs[0].isTensor())
    return std::nullopt;
  return outs[0].tensor();
}

/// Turns `n` into a `const` holding `computed`; false (n untouched) when it cannot be written
/// exactly or does not fit n's declared type. The declared dtype wins over the kernel's: a
/// Python float lowers to an f64[] constant, so mul(f32[], f64[]) is declared f32[] (the scalar
/// is weak) while the kernel promotes two 0-d operands to f64. Every reader of n (an Enter, a
/// loop Merge) was typed against the declared type, so the folded node must keep it.
bool becomeConstant(Node &n, const rt::Tensor &computed) {
  const Type &declared = n.results[0];
  if (computed.rank() != (int64_t)declared.rank())
    return false;
  for (size_t i = 0; i < declared.shape().size(); ++i)
    if (declared.shape()[i].isStatic() && declared.shape()[i].size() != computed.shape()[i])
      return false;
  std::optional<rt::Tensor> converted = castTo(computed, declared.dtype());
  if (!converted)
    return false;
  const rt::Tensor &t = *converted;
  if (t.numel() > kMaxFoldedElements)
    return false;
  std::optional<std::vector<double>> values = elementsOf(t);
  if (!values)
    return false;
  Shape shape;
  for (int64_t d : t.shape())
    shape.push_back(Dim::fixed(d));
  Attrs attrs;
  if (t.rank() == 0 && t.dtype() == DType::I64)
    attrs["value"] = static_cast<int64_t>((*values)[0]);
  else if (t.rank() == 0 && t.dtype() == DType::F64)
    attrs["value"] = (*values)[0];
  else if (t.rank() == 0 && t.dtype() == DType::Bool)
    attrs["value"] = (*values)[0] != 0.0;
  else
    attrs = {{"value", *values}, {"shape", shape}, {"dtype", t.dtype()}};
  n.op = OpKind::Const;
  n.inputs.clear();
  n.attrs = std::move(attrs);
  n.results = {Type::tensor(t.dtype(), shape)};
  return true;
}

bool isFoldable(const Graph &g, const Node &n) {
  if (n.op == OpKind::Const || n.inputs.empty() || !isPure(n) || n.results.size() != 1 ||
      !n.results[0].isTensor())
    return false;
  return std::all_of(n.inputs.begin(), n.inputs.end(),
                     [&](const ValueRef &in) { return g.node(in.node).op == OpKind::Const; });
}

} // namespace

PassResult runConstantFolding(Graph &g, PassContext &ctx) {
  std::optional<std::vector<NodeId>> order = g.topologicalOrder();
  if (!order)
    return PassResult::Unchanged;
  bool changed = false;
  for (NodeId id : *order) {
    if (!isFoldable(g, g.node(id)))
      continue;
    std::vector<rt::Value> inputs;
    std::vector<NodeId> deps = g.node(id).controlInputs;
    for (const ValueRef &in : g.node(id).inputs) {
      const Node &c = g.node(in.node);
      std::optional<rt::Tensor> value = evaluate(c, {});
      if (!value)
        break;
      inputs.emplace_back(std::move(*value));
      deps.insert(deps.end(), c.controlInputs.begin(), c.controlInputs.end());
    }
    if (inputs.size() != g.node(id).inputs.size())
      continue;
    std::optional<rt::Tensor> result = evaluate(g.node(id), inputs);
    Node &n = g.node(id);
    // The runtime's helpers throw too (a broadcast view, which needs no memory, of a shape
    // whose element count overflows: its numel()); that is a failure to fold like the kernel's.
    bool folded = false;
    if (!result || !rt::guard([&] { folded = becomeConstant(n, *result); }) || !folded)
      continue;
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    n.controlInputs = std::move(deps);
    ctx.count("folded");
    changed = true;
  }
  return changed ? PassResult::Changed : PassResult::Unchanged;
}

} // namespace dlm::opt
