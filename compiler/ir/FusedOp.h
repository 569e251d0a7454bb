//===- compiler/ir/FusedOp.h - The `fused` op that elementwise fusion makes =//
//
// `fused(x0, x1, ...) {body = "..."}` computes a chain of elementwise ops in one node. Its body
// is a small expression in SSA form over the node's inputs (docs/ir.md "fused"):
//
//   body  := stmt ('; ' stmt)*
//   stmt  := '%'K ' = ' OP '(' '%'I (', ' '%'I)* ')' ' : ' DTYPE
//
// %0 .. %(n-1) are the node's inputs; statements number on from %n, each reads only inputs and
// earlier statements, and the last statement is the node's result. OP is an elementwise
// registry op without attributes; DTYPE is its result dtype. Every statement has the node's
// result shape: only the inputs broadcast (NumPy rules) to it. So a code generator evaluates
// the body once per output element — one loop — and the runtime's `fused` kernel
// (kernels/cpu/Fused.cpp: the executor's, and generated code's fallback) interprets it op by op
// with the ordinary kernels (the same results bit for bit). The syntax itself lives in the
// runtime (runtime/FusedBody.h), which AOT executables link without the compiler. The op is
// part of the IR, not of the optimizer that makes it: `dlm-opt`'s parser, the JIT's and the
// PTX code generators read it too.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_IR_FUSEDOP_H
#define DLM_COMPILER_IR_FUSEDOP_H

#include "runtime/FusedBody.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlm {

using FusedStatement = rt::FusedStatement;

/// Parses a body over `numInputs` inputs; nullopt when it is malformed or a statement's op is
/// not an elementwise op without attributes taking that many operands (defined beside the
/// op's type rule, GraphOps.cpp).
std::optional<std::vector<FusedStatement>> parseFusedBody(std::string_view body, size_t numInputs);

/// Prints statements in the body syntax (numbering from `numInputs`).
std::string printFusedBody(const std::vector<FusedStatement> &body, size_t numInputs);

} // namespace dlm

#endif // DLM_COMPILER_IR_FUSEDOP_H
