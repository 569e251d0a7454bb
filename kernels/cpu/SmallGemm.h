//===- kernels/cpu/SmallGemm.h - direct loops for small matrix products ---===//
//
// OpenBLAS spends far more on packing and dispatch than on the arithmetic of the products an
// unbatched recurrent step does ([1, 32] x [32, 128] is ~4000 multiply-adds: ~50 ns of work,
// ~800 ns through sgemm). Products of 1-3 rows, and outer products, whose m * n * k is at
// most kSmallGemmMaxWork run here instead: plain loops over arbitrary element strides (no
// copies, no temporaries), vectorised by the compiler for -march=${DLM_MARCH}.
//
// Summation order (fixed, the same for every layout of the operands): each element
//   c[i, j] = sum over p of a[i, p] * b[p, j]
// is accumulated in L = kSmallGemmLanes = 8 lanes (f32 and f64): lane l sums the terms
// p = l, l + L, l + 2L, ... in ascending p, starting from -0.0, each step a rounded multiply,
// then a rounded add. Never a fused multiply-add: SmallGemm.cpp is compiled with contraction
// off, so the kernels built for this CPU (the JIT, the graph executor) and for baseline x86-64
// (portable AOT executables, docs/codegen.md) give the same bits. The lanes are then combined
// by halving: lane l += lane l + L/2 for l < L/2, then L/4, ..., 1; the result is
// lane 0. (Lanes with no term hold -0.0, the identity of addition, so skipping them changes
// nothing.) A product with k = 0 is +0.0. Then, if asked, an addend is added (result + addend,
// one rounding: what add(matmul(a, b), addend) gives) and relu applied.
//
// A k <= L product therefore rounds each term once and adds the terms in a fixed tree; a k = 1
// product (an outer product) is exactly the rounded products. Transposed views, row or column
// vectors and [n, 1] / [1, n] views of any stride give the same bits as their contiguous copies.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_KERNELS_CPU_SMALLGEMM_H
#define DLM_KERNELS_CPU_SMALLGEMM_H

#include <cstdint>

namespace dlm::rt::cpu {

/// The number of lanes each element's sum is split into (for f32 and f64 alike).
inline constexpr int kSmallGemmLanes = 8;

/// The largest m * n * k that takes the small path.
inline constexpr int64_t kSmallGemmMaxWork = 64 * 1024;
/// The most rows (of a k > 1 product) that take the small path: OpenBLAS's register-blocked
/// kernel wins from 4 rows up even at these sizes, while the direct loops win for 1-3 rows and
/// for outer products (k = 1) of any row count (measured one thread, f32; bench/kernels
/// BM_GemmSmallPath vs BM_GemmOpenBlas, docs/runtime.md).
inline constexpr int64_t kSmallGemmMaxRows = 3;

/// Whether an m x k by k x n product takes the small path.
inline bool smallGemmFits(int64_t m, int64_t n, int64_t k) {
  return (m <= kSmallGemmMaxRows || k == 1) && m <= kSmallGemmMaxWork && n <= kSmallGemmMaxWork &&
         k <= kSmallGemmMaxWork && m * n * k <= kSmallGemmMaxWork;
}

/// A matrix read through element strides: element (r, c) is at p[r * rs + c * cs].
template <typename T> struct MatrixRef {
  const T *p;
  int64_t rs, cs;
};

/// c[i * ldc + j] = relu?(sum_p a(i, p) * b(p, j) [+ add(i, j)]) for i < m, j < n, in the order
/// described above. `add.p` may be null (no addend) and may alias c exactly (add = c, ldc, 1:
/// accumulation into c). Strides may be anything, zero included (a broadcast addend).
void smallGemm(int64_t m, int64_t n, int64_t k, MatrixRef<float> a, MatrixRef<float> b, float *c,
               int64_t ldc, MatrixRef<float> add, bool relu);
void smallGemm(int64_t m, int64_t n, int64_t k, MatrixRef<double> a, MatrixRef<double> b, double *c,
               int64_t ldc, MatrixRef<double> add, bool relu);

} // namespace dlm::rt::cpu

#endif // DLM_KERNELS_CPU_SMALLGEMM_H
