//===- compiler/codegen/Nvptx.h - Fused elementwise bodies as PTX kernels --===//
//
// The GPU side of elementwise fusion (docs/cuda.md "Generated fused kernels"): a `fused` node's
// body is compiled through LLVM's NVPTX backend into a PTX kernel for sm_90, with the same
// scalar code as the CPU loops (ElementCode: the FastMath exp/tanh/sigmoid, the kernels'
// conversions and NaN rules). The CUDA backend loads the PTX with the driver API and caches it.
//
// The kernel, one thread per output element in a grid-stride loop:
//
//   .entry NAME(out, n, extent_0 .. extent_{R-1}, operand_0, ..., operand_{K-1})
//
//   out       global pointer to the dense output (bool stored as one byte)
//   n         i64, the number of output elements (the product of the extents)
//   extent_d  i64, the output's dims (R = rank)
//   operand   a tensor: its global data pointer followed by R i64 strides in elements, the
//             operand viewed in the output's index space (0 on broadcast dims; any layout);
//             a 0-d host value: the value itself (bool as one byte)
//
// Element i is decomposed row-major into the output's multi-index, each tensor operand read at
// the dot product of that index with its strides, the body evaluated, out[i] stored.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_CODEGEN_NVPTX_H
#define DLM_COMPILER_CODEGEN_NVPTX_H

#include "compiler/ir/FusedOp.h"
#include "compiler/ir/Graph.h"
#include "compiler/support/Diagnostics.h"
#include "runtime/Devices.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace dlm::codegen {

/// The GPU architecture and PTX ISA version generated kernels target.
inline constexpr const char *kPtxArch = "sm_90";

/// Compiles `body` over `operands` into the PTX of one kernel named `name` for outputs of
/// `rank` dims. nullopt with `error` set when the body uses something the generated GPU code
/// cannot do (an op that needs the C library, an unsupported conversion) or `rank` > 8.
std::optional<std::string> compileFusedPtx(const std::vector<FusedStatement> &body,
                                           const std::vector<rt::FusedOperand> &operands,
                                           size_t rank, const std::string &name,
                                           std::string &error);

/// Installs compileFusedPtx as the runtime's rt::FusedPtxCompiler (the CUDA backend's `fused`
/// kernel calls it). Idempotent.
void installPtxCompiler();

/// `--emit=ptx`: the kernel of every `fused` node of `graph` whose result is a tensor of rank
/// >= 1 (named dlm_fused_<node id>, preceded by a comment with the node and its body). Nodes
/// whose body has no GPU form get a comment saying why. Returns false only on an internal error.
bool printPtx(const graph::Graph &graph, DiagnosticEngine &diags, llvm::raw_ostream &os);

} // namespace dlm::codegen

#endif // DLM_COMPILER_CODEGEN_NVPTX_H
