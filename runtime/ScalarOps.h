//===- runtime/ScalarOps.h - The scalar functions of DLM_SCALAR_OP rows ---===//
//
// An op written DLM_SCALAR_OP in ops/Ops.def (log, sin, cos, ...) computes each element with
// one function, `ScalarOp<K>::apply` in kernels/cpu/Elementwise.cpp, exported here in f32 and
// f64 under C names: the CPU kernel runs it over a tensor, and the JIT's elementwise loops call
// the export per element (compiler/codegen/ElementCode.cpp), so both engines compute the op from
// one definition, and adding such an op needs no code generation of its own. A predicate's
// function returns 1 or 0.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_SCALAROPS_H
#define DLM_RUNTIME_SCALAROPS_H

#include "ops/OpKind.h"

extern "C" {
#define DLM_OP(Kind, Name, Operands, Attrs, Rule, Flags)
#define DLM_SCALAR_OP(Kind, Name, Operands, Attrs, Rule, Flags)                                    \
  float dlm_scalar_##Kind##_f32(float);                                                            \
  double dlm_scalar_##Kind##_f64(double);
#include "ops/Ops.def"
}

namespace dlm::rt {

/// An exported scalar function: its C name and address.
struct ScalarFunction {
  const char *name = nullptr;
  void *address = nullptr;
};

/// The f32 (or, with `f64`, the f64) function of op `kind`; empty unless the op is a
/// DLM_SCALAR_OP row.
inline ScalarFunction scalarFunction(OpKind kind, bool f64) {
  switch (kind) {
#define DLM_OP(Kind, Name, Operands, Attrs, Rule, Flags)
#define DLM_SCALAR_OP(Kind, Name, Operands, Attrs, Rule, Flags)                                    \
  case OpKind::Kind:                                                                               \
    return f64 ? ScalarFunction{"dlm_scalar_" #Kind "_f64", (void *)&dlm_scalar_##Kind##_f64}      \
               : ScalarFunction{"dlm_scalar_" #Kind "_f32", (void *)&dlm_scalar_##Kind##_f32};
#include "ops/Ops.def"
  default:
    return {};
  }
}

} // namespace dlm::rt

#endif // DLM_RUNTIME_SCALAROPS_H
