//===- kernels/cpu/CpuKernels.h - CPU kernels: registration and helpers ---===//
//
// The CPU kernels of every op in docs/ops.md (except control flow, which the executor runs).
// Each kernels/cpu/*.cpp file implements one group and registers it from its
// `register*Kernels()` function; `registerCpuKernels()` (called once by the kernel table on
// first lookup) calls them all. The helpers here are the shared vocabulary of those files:
// operand access with clear errors, broadcasting and the dtype promotion rule.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_KERNELS_CPU_CPUKERNELS_H
#define DLM_KERNELS_CPU_CPUKERNELS_H

#include "runtime/Kernel.h"
#include "runtime/Promotion.h"

#include <span>

namespace dlm::rt::cpu {

/// Registers every CPU kernel with the kernel table.
void registerCpuKernels();

void registerElementwiseKernels();
void registerReduceKernels();
void registerLinalgKernels();
void registerShapeKernels();
void registerNNKernels();
void registerCreateKernels();
void registerIOKernels();
void registerCollectiveKernels();
void registerStackKernels();
void registerFusedKernels();

/// The FMA copies of the contracted kernel groups (FmaVariant.h), in the portable runtime only.
namespace fma {
void registerElementwiseKernels();
void registerNNKernels();
} // namespace fma

using Inputs = std::span<const Value>;
using Outputs = std::vector<Value>;

/// Throws unless there are exactly (or, with `variadic`, at least) `n` operands.
void expectArity(Inputs ins, size_t n, const char *op, bool variadic = false);
/// Operand `i` as a CPU tensor; throws naming `op` otherwise.
const Tensor &tensorArg(Inputs ins, size_t i, const char *op);

/// NumPy broadcast of two shapes; throws "cannot broadcast f32[3, 4] with f32[5]".
Shape broadcastShapes(const Tensor &a, const Tensor &b);
Shape broadcastShapes(const Shape &a, const Shape &b, const std::string &what);

/// The dtype an elementwise op computes in, PyTorch-style (runtime/Promotion.h): dimensioned
/// tensors outrank 0-d f32/i32 tensors, which outrank 0-d i64/f64/bool operands (the language
/// scalars); a lower-ranked operand only matters when its category (bool < int < float) is
/// higher, giving its own dtype, or for a scalar the category's default (f32, i64).
DType resultType(const Tensor &a, const Tensor &b);
/// True for a 0-d i64, f64 or bool operand: the kernels read it as a language scalar.
bool readsAsScalar(const Tensor &t);
/// The float dtype for ops that always produce floats (div, exp, ...): a float input keeps
/// its dtype; integer/bool inputs give f32, or f64 when every operand reads as a scalar
/// (Python's `1 / 2` is a float).
DType floatResultType(DType computed, bool allScalars);

/// A shape from attribute `name` whose kDynamicDim entries take the values of the integer
/// operands from `first` on, in order. When the attribute is absent the operands are the whole
/// shape (0-d integers, one per dimension, or one 1-D integer tensor such as shape_of's result).
Shape shapeFromAttrOrInputs(const Attrs &attrs, const char *name, Inputs ins, size_t first);
/// The value of 0-d integer operand `i` (a run-time dimension or bound).
int64_t intOperand(Inputs ins, size_t i, const char *op);

/// The tail of the optimizer's fused library ops (matmul_bias, conv2d_bias): out += bias
/// (broadcast to out's shape, out fresh and contiguous), then relu in place when `relu`, in one
/// pass — exactly add's and relu's results. Not GEMM with beta = 1 on a bias-filled output:
/// OpenBLAS adds the partial products of a long inner dimension to C one block at a time, which
/// would round differently from add(matmul(a, b), bias).
void addBiasInPlace(Tensor &out, const Tensor &bias, bool relu, const char *op);
/// Whether `t` is the only handle on its tensor and that tensor the only one on its buffer (no
/// view, no stack entry, no other holder): whoever holds `t` may then overwrite its elements.
inline bool isSoleOwner(const Tensor &t) {
  return t && t.get()->refs.load(std::memory_order_acquire) == 1 && t.buffer()->useCount() == 1;
}
/// matmul_bias accumulating into its addend: acc = relu?(a @ b + acc) written over acc's own
/// elements, when the product takes smallGemm (its accumulate form, c = addend = acc: bitwise
/// what matmulBias computes into a fresh output) and acc is a dense [m, n] tensor of a and b's
/// float dtype, all on the CPU. Returns false, having written nothing, otherwise (larger
/// products keep a fresh output: see addBiasInPlace on beta = 1). The caller must hold acc
/// alone (isSoleOwner, and no later reader of the value).
bool matmulBiasAccumulate(const Tensor &a, const Tensor &b, const Tensor &acc, bool relu);
/// Row-major C = A * B (+ beta * C), each operand optionally transposed: products small enough
/// for smallGemm (kernels/cpu/SmallGemm.h, its fixed summation order) with beta 0 or 1 by its
/// direct loops, others through OpenBLAS.
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
          const float *b, int64_t ldb, float beta, float *c, int64_t ldc);
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
          const double *b, int64_t ldb, double beta, double *c, int64_t ldc);

/// relu as PyTorch computes it: a negative becomes +0; NaN and -0.0 pass through (for both,
/// v < 0 is false). relu_grad masks likewise: g where x <= 0 is false (x > 0 or NaN).
template <typename T> inline T reluOf(T v) { return v < T(0) ? T(0) : v; }
template <typename T> inline T reluGradOf(T x, T g) { return x <= T(0) ? T(0) : g; }

/// Sum of a contiguous run in double, accumulated in eight fixed lanes combined in a fixed
/// order: deterministic (independent of threads and alignment), and unlike one running sum the
/// lanes let the loop vectorise.
template <typename T> double laneSum(const T *p, int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k)
      acc[k] += (double)p[i + k];
  double s = 0;
  for (int k = 0; k < 8; ++k)
    s += acc[k];
  for (; i < n; ++i)
    s += (double)p[i];
  return s;
}

} // namespace dlm::rt::cpu

#endif // DLM_KERNELS_CPU_CPUKERNELS_H
