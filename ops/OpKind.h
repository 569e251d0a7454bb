//===- ops/OpKind.h - Op kinds, names and flags from the op table ---------===//
//
// The vocabulary every layer shares about ops, generated from ops/Ops.def: `OpKind`, one
// enumerator per row; the op's name (docs/ops.md, .dlmir, the kernel table) and its flags. Code
// refers to an op by kind, never by comparing names; a name is looked up once, where text comes
// in (the .dlmir reader, a fused body, a kernel registered by name).
//
// Header-only, standard library only: compiler/, runtime/ and kernels/ include it alike (an AOT
// executable links the runtime without the compiler), so it may not include either.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_OPS_OPKIND_H
#define DLM_OPS_OPKIND_H

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace dlm {

/// One op of ops/Ops.def, in table order.
enum class OpKind : uint16_t {
#define DLM_OP(Kind, Name, Operands, Attrs, Rule, Flags) Kind,
#include "ops/Ops.def"
};

inline constexpr size_t kNumOpKinds = 0
#define DLM_OP(Kind, Name, Operands, Attrs, Rule, Flags) +1
#include "ops/Ops.def"
    ;

/// A set of the named facts of ops/Ops.def's Flags column.
struct OpFlags {
  uint32_t bits = 0;
  friend constexpr OpFlags operator|(OpFlags a, OpFlags b) { return {a.bits | b.bits}; }
  friend constexpr bool operator==(OpFlags, OpFlags) = default;
  /// Whether every flag of `f` is set.
  constexpr bool has(OpFlags f) const { return (bits & f.bits) == f.bits; }
};

/// The flags. Each row of ops/Ops.def names the ones that hold for its op.
namespace opflag {
inline constexpr OpFlags NoFlags{0};
/// Computed element by element over the broadcast shape of its operands: elementwise fusion
/// may put it in a `fused` body, and the JIT emits it inline (unless KernelFallback).
inline constexpr OpFlags Elementwise{1u << 0};
/// Integer and bool operands give a float result (f32; f64 for language scalars).
inline constexpr OpFlags FloatResult{1u << 1};
/// op(a, b) == op(b, a): common-subexpression elimination orders the operands.
inline constexpr OpFlags Commutative{1u << 2};
/// No gradient rule, by design (integer or bool results, sampling, effects, graph plumbing).
inline constexpr OpFlags NotDifferentiable{1u << 3};
/// The scheduler's expensive cost class: the graph executor hands it to an idle thread.
inline constexpr OpFlags Expensive{1u << 4};
/// The last operand repeats, zero or more times.
inline constexpr OpFlags Variadic{1u << 5};
/// An effect: ordered by control edges and never removed as dead code.
inline constexpr OpFlags SideEffects{1u << 6};
/// A control-flow primitive (Switch, Merge, Enter, Exit, NextIteration, LoopCond): the graph
/// executor runs it itself; codegen turns it back into structured loops and branches.
inline constexpr OpFlags ControlFlow{1u << 7};
/// A language function of the same name whose arguments are the op's operands (also a method:
/// `x.exp()`); sema's plain builtins.
inline constexpr OpFlags Builtin{1u << 8};
/// Polynomial-chain math (exp, log, tanh, ...): ~10 flops per element in the placement pass's
/// cost model (docs/cuda.md "Copy cost") rather than 1.
inline constexpr OpFlags Transcendental{1u << 9};
/// Its result is never negative (0 and inf included): exp(log(x)) may be x.
inline constexpr OpFlags NonNegative{1u << 10};
/// Its only run-time errors are shape mismatches, which static shapes rule out (a
/// non-elementwise op without it may fail on values: an index out of range, a file).
inline constexpr OpFlags FailsOnlyOnShapes{1u << 11};
/// Elementwise, but the JIT calls its kernel rather than emitting it inline.
inline constexpr OpFlags KernelFallback{1u << 12};
/// Has a CUDA kernel (kernels/cuda/CudaKernels.cpp; runtime/Devices.h says for which operands).
inline constexpr OpFlags Cuda{1u << 13};
/// The NVPTX code generator compiles it in a `fused` body (without the C library).
inline constexpr OpFlags CudaFused{1u << 14};
/// A helper the gradient rules emit (relu_grad, slice_grad, ...; the ops named *_grad): one
/// without a rule of its own is reported when differentiated again, never taken as zero.
inline constexpr OpFlags BackwardHelper{1u << 17};
/// One of autodiff's stacks (docs/autodiff.md): threaded state, never folded, merged or moved
/// like a pure op.
inline constexpr OpFlags StackOp{1u << 18};
/// The engines run it themselves, without a kernel: the control-flow primitives and Identity.
inline constexpr OpFlags NoKernel{1u << 16};
/// One scalar function of the kernels computes each element, and the JIT calls it
/// (runtime/ScalarOps.h): the rows written DLM_SCALAR_OP.
inline constexpr OpFlags ScalarCall{1u << 15};
} // namespace opflag

namespace optable {
using namespace opflag;
inline constexpr std::string_view kNames[] = {
#define DLM_OP(Kind, Name, Operands, Attrs, Rule, Flags) Name,
#include "ops/Ops.def"
};
inline constexpr OpFlags kFlags[] = {
#define DLM_OP(Kind, Name, Operands, Attrs, Rule, Flags) Flags,
#include "ops/Ops.def"
};

/// The kinds sorted by name, for opKindNamed's binary search.
constexpr std::array<OpKind, kNumOpKinds> byName() {
  std::array<OpKind, kNumOpKinds> kinds{};
  for (size_t i = 0; i < kNumOpKinds; ++i)
    kinds[i] = OpKind(i);
  std::sort(kinds.begin(), kinds.end(),
            [](OpKind a, OpKind b) { return kNames[size_t(a)] < kNames[size_t(b)]; });
  return kinds;
}
inline constexpr std::array<OpKind, kNumOpKinds> kByName = byName();
} // namespace optable

/// The op's name: "add", "Switch", ...
constexpr std::string_view opName(OpKind k) { return optable::kNames[size_t(k)]; }
/// The op's name as a NUL-terminated C string (a view of the table's literal).
constexpr const char *opCName(OpKind k) { return optable::kNames[size_t(k)].data(); }
/// The op's flags.
constexpr OpFlags opFlags(OpKind k) { return optable::kFlags[size_t(k)]; }
/// Whether every flag of `f` holds for `k`: `opHas(k, opflag::Elementwise)`.
constexpr bool opHas(OpKind k, OpFlags f) { return opFlags(k).has(f); }

/// The op called `name`, or nullopt.
constexpr std::optional<OpKind> opKindNamed(std::string_view name) {
  const auto &kinds = optable::kByName;
  auto it = std::lower_bound(kinds.begin(), kinds.end(), name,
                             [](OpKind k, std::string_view n) { return opName(k) < n; });
  if (it == kinds.end() || opName(*it) != name)
    return std::nullopt;
  return *it;
}

/// Every kind, in table order: `for (OpKind k : allOpKinds())`.
constexpr std::array<OpKind, kNumOpKinds> allOpKinds() {
  std::array<OpKind, kNumOpKinds> kinds{};
  for (size_t i = 0; i < kNumOpKinds; ++i)
    kinds[i] = OpKind(i);
  return kinds;
}

} // namespace dlm

#endif // DLM_OPS_OPKIND_H
