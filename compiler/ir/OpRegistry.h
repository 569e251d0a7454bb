//===- compiler/ir/OpRegistry.h - One op, one place ------------------------===//
//
// Every operation of docs/ops.md is declared once here (DESIGN.md "one op, one place"): its name,
// operands, attributes and dtype/shape rule, which sema uses to type the program, plus the slots
// the graph stages fill — gradient rule, cost class, elementwise flag, side effects and the kernel
// name per device. Passes look facts up by op name; none of them switches over all ops.
//
// The entries themselves live in Ops.cpp, one small rule function per family of ops.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_IR_OPREGISTRY_H
#define DLM_IR_OPREGISTRY_H

#include "compiler/ir/Type.h"

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
enum class Device : uint8_t { CPU, CUDA };
inline constexpr size_t kNumDevices = 2;

struct OpInfo {
  std::string name;
  /// Operand names; when `variadic`, the last one repeats (zero or more times).
  std::vector<std::string> operands;
  bool variadic = false;
  std::vector<AttrSpec> attrs;
  /// The dtype and shape rule. Never null.
  InferFn infer = nullptr;

  // --- Facts for the graph stages (lowering, autodiff, scheduling, codegen) ---
  /// Reverse-mode rule; null until autodiff registers one. Must be set when `differentiable`.
  GradRuleFn grad = nullptr;
  bool differentiable = true;
  CostClass cost = CostClass::Cheap;
  bool elementwise = false;
  /// Ordered by control edges; never removed as dead code.
  bool sideEffects = false;
  /// Kernel name per Device (index by Device); defaults to the op name.
  std::string kernels[kNumDevices];

  const AttrSpec *findAttr(std::string_view attr) const;
  /// Fewest operands accepted.
  size_t minOperands() const { return variadic ? operands.size() - 1 : operands.size(); }
};

class OpRegistry {
public:
  /// The process-wide registry, filled on first use from Ops.cpp.
  static OpRegistry &get();

  /// Entry for `name`, or null when there is no such op.
  const OpInfo *lookup(std::string_view name) const;
  /// Mutable entry for the graph stages to fill their slots at start-up (null if absent).
  OpInfo *lookupMutable(std::string_view name);
  /// All entries, in name order.
  std::vector<const OpInfo *> all() const;

  /// Adds an entry; used by Ops.cpp and by later stages that add graph-only ops.
  OpInfo &add(OpInfo info);

  /// Runs `op`'s type rule. On failure returns the error type and fills `error`/`culprit`.
  Type infer(const OpInfo &op, const std::vector<Type> &operands, const Attrs &attrs,
             DimContext &dims, std::string &error, int &culprit) const;

private:
  OpRegistry();
  std::map<std::string, OpInfo, std::less<>> ops_;
};

/// Fills `registry` with the ops of docs/ops.md (Ops.cpp).
void registerBuiltinOps(OpRegistry &registry);
/// Adds the graph-only ops: the control-flow primitives and lowering's helpers (GraphOps.cpp).
void registerGraphOps(OpRegistry &registry);

} // namespace dlm

#endif // DLM_IR_OPREGISTRY_H
