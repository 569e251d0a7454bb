//===- runtime/FusedBody.h - The body of a `fused` node -------------------===//
//
// `fused(x0, x1, ...) {body = "..."}` (compiler/ir/FusedOp.h, docs/ir.md "fused") computes a
// chain of elementwise ops in one node. Its body is a small expression in SSA form over the
// node's inputs:
//
//   body  := stmt ('; ' stmt)*
//   stmt  := '%'K ' = ' OP '(' '%'I (', ' '%'I)* ')' ' : ' DTYPE
//
// %0 .. %(n-1) are the inputs; statements number on from %n and read only inputs and earlier
// statements; the last statement is the result. This header is the syntax, shared by the
// compiler (which also checks every OP against its op registry) and the runtime's `fused`
// kernel (kernels/cpu/Fused.cpp), which interprets a body op by op with the ordinary kernels —
// the graph executor's implementation, and generated code's fallback for a body it does not
// emit inline, so AOT executables, which link only the runtime, have it too.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_FUSEDBODY_H
#define DLM_RUNTIME_FUSEDBODY_H

#include "runtime/DType.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlm::rt {

struct FusedStatement {
  std::string op;
  std::vector<unsigned> operands; ///< value numbers: inputs first, then statements
  DType dtype = DType::F32;
};

/// Parses a body over `numInputs` inputs (syntax and numbering only: OP names are not
/// checked); nullopt when it is malformed.
std::optional<std::vector<FusedStatement>> parseFusedStatements(std::string_view body,
                                                                size_t numInputs);

} // namespace dlm::rt

#endif // DLM_RUNTIME_FUSEDBODY_H
