//===- compiler/ir/OpRegistry.h - One op, one place ------------------------===//
//
// The compiler's view of the op table (ops/Ops.def, DESIGN.md "one op, one place"): for every
// OpKind its name, operands, attributes and dtype/shape rule, which sema uses to type the
// program, its flags, and the slot autodiff fills with the gradient rule. Entries are indexed by
// kind; a name is looked up only where text comes in. No pass switches over all ops.
//
// The type rules live in Ops.cpp, ShapeOps.cpp, NNOps.cpp and GraphOps.cpp, one small rule
// function per family of ops (compiler/ir/OpRules.h).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_IR_OPREGISTRY_H
#define DLM_IR_OPREGISTRY_H

#include "compiler/ir/Type.h"
#include "ops/OpKind.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace dlm {

/// Marks a `slice` bound that is an operand (a run-time int), not a constant.
inline constexpr int64_t kDynamicIndex = INT64_MIN;
/// A `slice` end meaning "to the end of the dim" when the dim is symbolic.
inline constexpr int64_t kSliceToEnd = INT64_MAX;

enum class AttrKind : uint8_t { Int, Float, Bool, Str, Ints, Floats, DType, DTypes, Shape, Shapes };

/// A constant attribute value. `Shape` holds dims; a symbolic dim in a shape attribute is given
/// at run time by the op's trailing int operands, in order (zeros(B, 10) where B = x.shape[0]).
/// In `reshape`, the dim kInferDim (printed -1) is computed from the element count.
using AttrValue =
    std::variant<int64_t, double, bool, std::string, std::vector<int64_t>, std::vector<double>,
                 DType, std::vector<DType>, Shape, std::vector<Shape>>;

/// The `-1` entry of a reshape target.
inline Dim inferDim() { return Dim::symbol("-1"); }
inline bool isInferDim(const Dim &d) { return d.isSymbolic() && d.name() == "-1"; }

struct AttrSpec {
  std::string name;
  AttrKind kind;
};

/// Named attributes of one op instance, ordered by name (deterministic printing).
using Attrs = std::map<std::string, AttrValue>;

/// Printed form of an attribute value: `1`, `0.5`, `true`, `"s"`, `[0, 1]`, `f32`, `[B, 10]`.
std::string attrStr(const AttrValue &v);

/// What a type rule sees: operand types, attributes and a source of fresh dims. A rule that
/// rejects its input calls fail() and returns its result (the error type); `culprit` says which
/// operand the caret should point at (-1: the whole expression).
struct InferContext {
  const std::vector<Type> &operands;
  const Attrs &attrs;
  DimContext &dims;
  std::string error;
  int culprit = -1;

  Type fail(std::string message, int operand = -1) {
    error = std::move(message);
    culprit = operand;
    return Type::error();
  }
  const Type &operand(size_t i) const { return operands[i]; }
  int64_t intAttr(const std::string &name, int64_t otherwise = 0) const;
  bool boolAttr(const std::string &name, bool otherwise = false) const;
  const std::vector<int64_t> *intsAttr(const std::string &name) const;
  const Shape *shapeAttr(const std::string &name) const;
  DType dtypeAttr(const std::string &name, DType otherwise = DType::F32) const;
};

using InferFn = Type (*)(InferContext &);

/// The graph stages define these; the registry only stores them.
struct GradContext;
using GradRuleFn = void (*)(GradContext &);

enum class CostClass : uint8_t { Cheap, Expensive };

struct OpInfo {
  OpKind kind = OpKind::Add;
  std::string name;
  /// ops/Ops.def's flags (opflag::Elementwise, ...); the fields below spell out the common ones.
  OpFlags flags;
  /// Operand names; when `variadic`, the last one repeats (zero or more times).
  std::vector<std::string> operands;
  bool variadic = false;
  std::vector<AttrSpec> attrs;
  /// The dtype and shape rule. Never null.
  InferFn infer = nullptr;

  // --- Facts for the graph stages (lowering, autodiff, scheduling, codegen) ---
  /// Reverse-mode rule; null until autodiff registers one. Set for every differentiable op.
  GradRuleFn grad = nullptr;
  bool differentiable = true;
  CostClass cost = CostClass::Cheap;
  bool elementwise = false;
  /// Ordered by control edges; never removed as dead code.
  bool sideEffects = false;

  const AttrSpec *findAttr(std::string_view attr) const;
  /// Fewest operands accepted.
  size_t minOperands() const { return variadic ? operands.size() - 1 : operands.size(); }
  /// Whether every flag of `f` holds: `info.has(opflag::Commutative)`.
  bool has(OpFlags f) const { return flags.has(f); }
};

class OpRegistry {
public:
  /// The process-wide registry, filled on first use from ops/Ops.def.
  static OpRegistry &get();

  /// The entry of `kind`.
  const OpInfo &info(OpKind kind) const { return ops_[size_t(kind)]; }
  /// Entry for `name`, or null when there is no such op.
  const OpInfo *lookup(std::string_view name) const;
  /// Mutable entry for autodiff to fill the gradient slot at start-up.
  OpInfo &infoMutable(OpKind kind) { return ops_[size_t(kind)]; }
  /// All entries, in name order.
  std::vector<const OpInfo *> all() const;

  /// Runs `op`'s type rule. On failure returns the error type and fills `error`/`culprit`.
  Type infer(const OpInfo &op, const std::vector<Type> &operands, const Attrs &attrs,
             DimContext &dims, std::string &error, int &culprit) const;

private:
  OpRegistry();
  std::vector<OpInfo> ops_; // index: OpKind
};

/// The registry entry of `kind`: `opInfo(OpKind::Add).elementwise`.
inline const OpInfo &opInfo(OpKind kind) { return OpRegistry::get().info(kind); }
/// The op's name as a std::string (for messages): opInfo(kind).name.
inline const std::string &opString(OpKind kind) { return opInfo(kind).name; }

} // namespace dlm

#endif // DLM_IR_OPREGISTRY_H
