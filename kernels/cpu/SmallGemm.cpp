//===- kernels/cpu/SmallGemm.cpp - direct loops for small matrix products -===//
//
// Three loop nests compute the same lanes (SmallGemm.h gives the order), chosen by layout:
//  0. k = 1 (an outer product): each element is one rounded product (plus the addend);
//  1. rows of b contiguous (b(p, j) and b(p, j + 1) adjacent): 4 vectors of output columns at
//     a time (then 1, then the last columns by nest 3), each lane 4 vectors of partial sums, so
//     every multiply and add is one vector instruction on a row of b;
//  2. columns of b and rows of a contiguous (x @ w.T): one dot product per element, its L lanes
//     one vector, halved by shuffles; 4 columns at a time, sharing the loads of a's row;
//  3. anything else: the lanes element by element.
// Lane l's first term is the plain product (bitwise -0.0 plus the product, as the order
// describes), so no lane needs initialising.
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/SmallGemm.h"
#include "kernels/cpu/CpuKernels.h"

#include <algorithm>
#include <cstring>

// The order in SmallGemm.h rounds every product: -march=native must not contract a * b + c
// into an FMA here when the baseline x86-64 build of the same file cannot: the file is compiled
// with -ffp-contract=off (kernels/CMakeLists.txt; the baseline has no FMA at all).

namespace dlm::rt::cpu {
namespace {

constexpr int kLanes = kSmallGemmLanes;

/// One lane group as a GCC vector (f32: a ymm register, f64: a zmm register with AVX-512 or
/// two ymm; SSE registers on baseline x86-64), and the integer vector its comparisons give.
/// Vectors are never passed by value across a call (their ABI depends on the target; -Wpsabi).
template <typename T> struct Vec;
template <> struct Vec<float> {
  typedef float type __attribute__((vector_size(32)));
  typedef float unaligned __attribute__((vector_size(32), aligned(4), may_alias));
  typedef int32_t mask __attribute__((vector_size(32)));
  typedef float half __attribute__((vector_size(16)));
  typedef float quarter __attribute__((vector_size(8)));
};
template <> struct Vec<double> {
  typedef double type __attribute__((vector_size(64)));
  typedef double unaligned __attribute__((vector_size(64), aligned(8), may_alias));
  typedef int64_t mask __attribute__((vector_size(64)));
  typedef double half __attribute__((vector_size(32)));
  typedef double quarter __attribute__((vector_size(16)));
};

/// The L elements at (possibly unaligned) `p` as a vector, and back. GCC 12 keeps a vector
/// filled by std::memcpy inside a loop over an array of vectors on the stack (a load, two
/// stores and a reload per vector: 150k instructions for a [1, 128] x [128, 512] product);
/// these are one vmovups each, or a memory operand of the multiply.
template <typename T> inline const typename Vec<T>::unaligned &vecAt(const T *p) {
  return *reinterpret_cast<const typename Vec<T>::unaligned *>(p);
}
template <typename T> inline typename Vec<T>::unaligned &vecAt(T *p) {
  return *reinterpret_cast<typename Vec<T>::unaligned *>(p);
}

/// Combines lanes s[0 .. present) (the others are -0.0, the identity) into s[0] by halving.
template <typename T, typename Lane> inline void reduceLanes(Lane *s, int present) {
  for (int h = kLanes / 2; h >= 1; h /= 2) {
    for (int l = 0; l < h && l + h < present; ++l)
      s[l] = s[l] + s[l + h];
    present = std::min(present, h);
  }
}

/// The epilogue: the sum, plus the addend's element, then relu.
template <typename T> inline T finish(T v, const T *addElem, bool relu) {
  if (addElem)
    v = v + *addElem;
  if (relu)
    v = reluOf(v);
  return v;
}

template <typename T> struct Problem {
  int64_t m, n, k;
  MatrixRef<T> a, b;
  T *c;
  int64_t ldc;
  MatrixRef<T> add;
  bool relu;

  const T *addAt(int64_t i, int64_t j) const {
    return add.p ? add.p + i * add.rs + j * add.cs : nullptr;
  }
  void store(int64_t i, int64_t j, T v) const { c[i * ldc + j] = finish(v, addAt(i, j), relu); }
};

/// Loop nest 1: NV vectors of output columns from j0 in row i, b's rows contiguous. Each lane
/// is NV vectors of partial sums; the lanes' chains run in registers.
template <typename T, int NV> inline void rowChunk(const Problem<T> &pb, int64_t i, int64_t j0) {
  using V = typename Vec<T>::type;
  constexpr int L = kLanes;
  const int present = (int)std::min<int64_t>(pb.k, L);
  const T *arow = pb.a.p + i * pb.a.rs;
  const T *bcol = pb.b.p + j0;
  V s[L][NV];
  for (int l = 0; l < present; ++l) {
    V acc[NV];
    T av = arow[l * pb.a.cs];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      acc[v] = vecAt(bcol + l * pb.b.rs + v * L) * av;
    for (int64_t p = l + L; p < pb.k; p += L) {
      av = arow[p * pb.a.cs];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        acc[v] = acc[v] + vecAt(bcol + p * pb.b.rs + v * L) * av;
    }
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      s[l][v] = acc[v];
  }
  if (present > 1)
    for (int h = L / 2, live = present; h >= 1; live = std::min(live, h), h /= 2)
      for (int l = 0; l < h && l + h < live; ++l)
        for (int v = 0; v < NV; ++v)
          s[l][v] = s[l][v] + s[l + h][v];
  for (int v = 0; v < NV; ++v) {
    V r = s[0][v];
    if (pb.add.p) {
      V av = {};
      const T *addRow = pb.add.p + i * pb.add.rs + (j0 + v * L) * pb.add.cs;
      if (pb.add.cs == 1)
        av = vecAt(addRow);
      else
        for (int jj = 0; jj < L; ++jj)
          av[jj] = addRow[jj * pb.add.cs];
      r = r + av;
    }
    if (pb.relu)
      r = r < 0 ? V{} : r; // reluOf per lane: NaN and -0.0 pass
    vecAt(pb.c + i * pb.ldc + j0 + v * L) = r;
  }
}

template <typename T> T stridedLanes(const Problem<T> &pb, int64_t i, int64_t j);

/// Loop nest 1 over row i: chunks of 4 vectors, then single vectors, then the last columns
/// one by one (loop nest 3).
template <typename T> void rowPass(const Problem<T> &pb, int64_t i) {
  constexpr int L = kLanes;
  int64_t j0 = 0;
  for (; j0 + 4 * L <= pb.n; j0 += 4 * L)
    rowChunk<T, 4>(pb, i, j0);
  for (; j0 + L <= pb.n; j0 += L)
    rowChunk<T, 1>(pb, i, j0);
  for (; j0 < pb.n; ++j0)
    pb.store(i, j0, stridedLanes(pb, i, j0));
}

/// Loop nest 2: NJ elements c(i, j) .. c(i, j + NJ - 1) as dot products of the contiguous run x
/// with the contiguous runs y, y + ys, ..., each of length k >= 1, each element's L lanes one
/// vector (the NJ products share x's loads; each element's sum is the one of NJ = 1).
template <typename T, int NJ> void dotLanes(const T *x, const T *y, int64_t ys, int64_t k, T *out) {
  using V = typename Vec<T>::type;
  using M = typename Vec<T>::mask;
  constexpr int L = kLanes;
  M iota;
  for (int l = 0; l < L; ++l)
    iota[l] = l;
  int64_t kFull = k / L * L;
  int rest = (int)(k - kFull);
  V acc[NJ];
  if (kFull) {
#pragma GCC unroll 4
    for (int jj = 0; jj < NJ; ++jj)
      acc[jj] = vecAt(x) * vecAt(y + jj * ys);
    for (int64_t p0 = L; p0 < kFull; p0 += L)
#pragma GCC unroll 4
      for (int jj = 0; jj < NJ; ++jj)
        acc[jj] = acc[jj] + vecAt(x + p0) * vecAt(y + jj * ys + p0);
  }
  if (rest) {
    V xv = {}, yv = {};
    std::memcpy(&xv, x + kFull, rest * sizeof(T));
    V negZero = -V{}; // (absent lanes hold -0.0, the identity of the tree's additions)
    for (int jj = 0; jj < NJ; ++jj) {
      std::memcpy(&yv, y + jj * ys + kFull, rest * sizeof(T));
      acc[jj] =
          kFull ? (iota < rest ? acc[jj] + xv * yv : acc[jj]) : (iota < rest ? xv * yv : negZero);
    }
  }
  // The halving tree on the vector: lanes l += l + 4, l += l + 2, l += l + 1.
  using H = typename Vec<T>::half;
  using Q = typename Vec<T>::quarter;
  static_assert(L == 8);
  for (int jj = 0; jj < NJ; ++jj) {
    H h = __builtin_shufflevector(acc[jj], acc[jj], 0, 1, 2, 3) +
          __builtin_shufflevector(acc[jj], acc[jj], 4, 5, 6, 7);
    Q q = __builtin_shufflevector(h, h, 0, 1) + __builtin_shufflevector(h, h, 2, 3);
    out[jj] = q[0] + q[1];
  }
}

/// Loop nest 2 over row i: 4 columns at a time, then one by one.
template <typename T> void dotPass(const Problem<T> &pb, int64_t i) {
  const T *x = pb.a.p + i * pb.a.rs;
  T r[4];
  int64_t j = 0;
  for (; j + 4 <= pb.n; j += 4) {
    dotLanes<T, 4>(x, pb.b.p + j * pb.b.cs, pb.b.cs, pb.k, r);
    for (int jj = 0; jj < 4; ++jj)
      pb.store(i, j + jj, r[jj]);
  }
  for (; j < pb.n; ++j) {
    dotLanes<T, 1>(x, pb.b.p + j * pb.b.cs, pb.b.cs, pb.k, r);
    pb.store(i, j, r[0]);
  }
}

/// Loop nest 3: c(i, j) over arbitrary strides.
template <typename T> T stridedLanes(const Problem<T> &pb, int64_t i, int64_t j) {
  constexpr int L = kLanes;
  T s[L];
  const T *x = pb.a.p + i * pb.a.rs, *y = pb.b.p + j * pb.b.cs;
  int present = (int)std::min<int64_t>(pb.k, L);
  for (int l = 0; l < present; ++l)
    s[l] = x[l * pb.a.cs] * y[l * pb.b.rs];
  for (int64_t p = L; p < pb.k; ++p)
    s[p % L] = s[p % L] + x[p * pb.a.cs] * y[p * pb.b.rs];
  reduceLanes<T>(s, present);
  return s[0];
}

template <typename T> void run(const Problem<T> &pb) {
  if (pb.m == 0 || pb.n == 0)
    return;
  if (pb.k == 0) {
    for (int64_t i = 0; i < pb.m; ++i)
      for (int64_t j = 0; j < pb.n; ++j)
        pb.store(i, j, T(0));
    return;
  }
  if (pb.k == 1 && pb.b.cs == 1) { // an outer product: each element is one rounded product
    for (int64_t i = 0; i < pb.m; ++i) {
      T av = pb.a.p[i * pb.a.rs];
      T *crow = pb.c + i * pb.ldc;
      if (!pb.add.p && !pb.relu)
#pragma GCC unroll 4
        for (int64_t j = 0; j < pb.n; ++j)
          crow[j] = av * pb.b.p[j];
      else if (pb.add.p && pb.add.cs == 1 && !pb.relu)
#pragma GCC unroll 4
        for (int64_t j = 0; j < pb.n; ++j)
          crow[j] = av * pb.b.p[j] + pb.add.p[i * pb.add.rs + j];
      else
        for (int64_t j = 0; j < pb.n; ++j)
          pb.store(i, j, av * pb.b.p[j]);
    }
    return;
  }
  // (With one column, b's column stride is never used: pick by the row stride.)
  bool rowsContiguous = pb.b.cs == 1 || pb.n == 1;
  if (pb.b.rs == 1 && pb.a.cs == 1 && (pb.b.cs != 1 || pb.n == 1)) {
    for (int64_t i = 0; i < pb.m; ++i)
      dotPass(pb, i);
  } else if (rowsContiguous) {
    for (int64_t i = 0; i < pb.m; ++i)
      rowPass(pb, i);
  } else {
    for (int64_t i = 0; i < pb.m; ++i)
      for (int64_t j = 0; j < pb.n; ++j)
        pb.store(i, j, stridedLanes(pb, i, j));
  }
}

} // namespace

void smallGemm(int64_t m, int64_t n, int64_t k, MatrixRef<float> a, MatrixRef<float> b, float *c,
               int64_t ldc, MatrixRef<float> add, bool relu) {
  run(Problem<float>{m, n, k, a, b, c, ldc, add, relu});
}

void smallGemm(int64_t m, int64_t n, int64_t k, MatrixRef<double> a, MatrixRef<double> b, double *c,
               int64_t ldc, MatrixRef<double> add, bool relu) {
  run(Problem<double>{m, n, k, a, b, c, ldc, add, relu});
}

} // namespace dlm::rt::cpu
