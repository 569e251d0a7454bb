//===- tests/kernels/SmallGemmTest.cpp - the small-product path ------------===//
//
// kernels/cpu/SmallGemm.h promises one summation order for every layout. Checked here on
// shapes around the lane count (k = 0, 1, L - 1, L, L + 1, ...), odd column counts, every
// storage of the operands (row-major, column-major, padded, strided both ways, broadcast
// addends) and f32/f64:
//  - bitwise equal to a scalar reference of the documented order (lanes p mod L, -0.0 start,
//    products and sums each rounded, halving tree);
//  - against an exact reference (products and sums in long double) within
//    (ceil(k / L) + log2(L) + 2) * u * sum_p |a(i, p) b(p, j)|, u the unit roundoff: the bound
//    of the lanes' chains and the tree;
//  - against OpenBLAS (cblas_sgemm/dgemm on contiguous copies) within that bound plus
//    (k + 2) * u * sum_p |a b|, OpenBLAS's own;
//  - through gemm() (transpose flags, leading dimensions, beta 0 and 1). The matmul and
//    matmul_bias kernels' use of it is checked in LinalgTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/SmallGemm.h"
#include "kernels/cpu/CpuKernels.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace dlm;
using namespace dlm::rt;
using dlm::rt::cpu::MatrixRef;

namespace {

/// A rows x cols matrix stored with element strides (rs, cs); gaps hold NaN so a kernel that
/// reads outside the matrix fails the comparison.
template <typename T> struct Stored {
  std::vector<T> buf;
  int64_t rs = 0, cs = 0;
  MatrixRef<T> ref() const { return {buf.data(), rs, cs}; }
};

enum class Layout { RowMajor, ColMajor, PaddedRows, PaddedCols, Strided, StridedCols };
const Layout kLayouts[] = {Layout::RowMajor,   Layout::ColMajor, Layout::PaddedRows,
                           Layout::PaddedCols, Layout::Strided,  Layout::StridedCols};

const char *layoutName(Layout l) {
  switch (l) {
  case Layout::RowMajor:
    return "row-major";
  case Layout::ColMajor:
    return "column-major";
  case Layout::PaddedRows:
    return "padded rows";
  case Layout::PaddedCols:
    return "padded columns";
  case Layout::Strided:
    return "strided rows";
  case Layout::StridedCols:
    return "strided columns";
  }
  return "?";
}

/// `values` (row-major rows x cols) stored in layout `l`.
template <typename T>
Stored<T> store(const std::vector<T> &values, int64_t rows, int64_t cols, Layout l) {
  Stored<T> s;
  switch (l) {
  case Layout::RowMajor:
    s.rs = cols, s.cs = 1;
    break;
  case Layout::ColMajor:
    s.rs = 1, s.cs = rows;
    break;
  case Layout::PaddedRows:
    s.rs = cols + 3, s.cs = 1;
    break;
  case Layout::PaddedCols:
    s.rs = 1, s.cs = rows + 2;
    break;
  case Layout::Strided:
    s.rs = 2 * cols + 1, s.cs = 2;
    break;
  case Layout::StridedCols:
    s.rs = 3, s.cs = 3 * rows + 1;
    break;
  }
  int64_t size = rows && cols ? (rows - 1) * s.rs + (cols - 1) * s.cs + 1 : 0;
  s.buf.assign(size, std::numeric_limits<T>::quiet_NaN());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      s.buf[r * s.rs + c * s.cs] = values[r * cols + c];
  return s;
}

/// The documented order (SmallGemm.h), written out for one element of row-major A and B.
template <typename T>
T orderedElement(const std::vector<T> &a, const std::vector<T> &b, int64_t n, int64_t k, int64_t i,
                 int64_t j) {
  constexpr int L = 8; // the documented lane count, f32 and f64
  if (k == 0)
    return T(0);
  T lane[L];
  for (int l = 0; l < L; ++l)
    lane[l] = T(-0.0);
  for (int64_t p = 0; p < k; ++p) {
    volatile T product = a[i * k + p] * b[p * n + j]; // (rounded: never contracted into an FMA)
    lane[p % L] = lane[p % L] + product;
  }
  for (int h = L / 2; h >= 1; h /= 2)
    for (int l = 0; l < h; ++l)
      lane[l] = lane[l] + lane[l + h];
  return lane[0];
}

template <typename T> std::vector<T> randomValues(std::mt19937 &rng, int64_t count) {
  std::normal_distribution<double> normal;
  std::vector<T> v(count);
  for (T &x : v)
    x = (T)normal(rng);
  // Zeros of both signs and an exact -0 product at the start, where k = 1 keeps them.
  if (count > 2)
    v[0] = T(-0.0), v[count / 2] = T(0);
  return v;
}

template <typename T> std::string dtypeName() { return sizeof(T) == 4 ? "f32" : "f64"; }

/// Runs smallGemm on every layout pair (and an addend with relu) for one shape and checks it.
template <typename T>
void checkShape(std::mt19937 &rng, int64_t m, int64_t n, int64_t k, bool allLayouts) {
  constexpr int L = 8; // the documented lane count, f32 and f64
  std::vector<T> a = randomValues<T>(rng, m * k), b = randomValues<T>(rng, k * n);
  std::vector<T> want(m * n), blas(m * n, T(7));
  std::vector<double> mags(m * n);
  const double lanesFactor = (double)((k + L - 1) / L) + std::log2((double)L) + 2;
  const double u = std::numeric_limits<T>::epsilon() / 2;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      want[i * n + j] = orderedElement(a, b, n, k, i, j);
      long double exact = 0, mag = 0;
      for (int64_t p = 0; p < k; ++p) {
        long double t = (long double)a[i * k + p] * b[p * n + j];
        exact += t;
        mag += std::fabs(t);
      }
      mags[i * n + j] = (double)mag;
      double bound = lanesFactor * u * (double)mag;
      ASSERT_LE(std::fabs((double)((long double)want[i * n + j] - exact)), bound)
          << dtypeName<T>() << " [" << m << ", " << k << "] x [" << k << ", " << n << "] element "
          << i << ", " << j;
    }
  if constexpr (sizeof(T) == 4)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(),
                std::max<int64_t>(1, k), b.data(), std::max<int64_t>(1, n), 0.0f, blas.data(),
                std::max<int64_t>(1, n));
  else
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a.data(),
                std::max<int64_t>(1, k), b.data(), std::max<int64_t>(1, n), 0.0, blas.data(),
                std::max<int64_t>(1, n));

  std::vector<std::pair<Layout, Layout>> pairs;
  for (Layout la : kLayouts)
    for (Layout lb : kLayouts)
      if (allLayouts || ((la == Layout::RowMajor || la == Layout::ColMajor) &&
                         (lb == Layout::RowMajor || lb == Layout::ColMajor)))
        pairs.push_back({la, lb});
  if (!allLayouts)
    pairs.push_back({Layout::Strided, Layout::PaddedCols});

  for (auto [la, lb] : pairs) {
    std::string what = dtypeName<T>() + " [" + std::to_string(m) + ", " + std::to_string(k) +
                       "] (" + layoutName(la) + ") x [" + std::to_string(k) + ", " +
                       std::to_string(n) + "] (" + layoutName(lb) + ")";
    Stored<T> sa = store(a, m, k, la), sb = store(b, k, n, lb);
    int64_t ldc = n + 1;
    std::vector<T> c(m * ldc, T(99));
    cpu::smallGemm(m, n, k, sa.ref(), sb.ref(), c.data(), ldc, {nullptr, 0, 0}, false);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        T got = c[i * ldc + j], w = want[i * n + j];
        ASSERT_EQ(std::memcmp(&got, &w, sizeof(T)), 0)
            << what << " element " << i << ", " << j << ": " << got << " vs the documented order's "
            << w;
        double tol = (lanesFactor + (double)(k + 2)) * u * mags[i * n + j];
        ASSERT_LE(std::fabs((double)got - (double)blas[i * n + j]), tol)
            << what << " element " << i << ", " << j << " against OpenBLAS";
      }
      ASSERT_EQ(c[i * ldc + n], T(99)) << what << ": wrote past the row";
    }
  }

  // The epilogue: a broadcast row addend, a full strided addend, and relu.
  std::vector<T> bias = randomValues<T>(rng, n), full = randomValues<T>(rng, m * n);
  Stored<T> fullStored = store(full, m, n, Layout::ColMajor);
  struct Addend {
    MatrixRef<T> ref;
    const char *name;
    T at(int64_t i, int64_t j) const { return ref.p[i * ref.rs + j * ref.cs]; }
  };
  for (Addend add :
       {Addend{{bias.data(), 0, 1}, "row addend"}, Addend{fullStored.ref(), "full addend"}})
    for (bool relu : {false, true}) {
      Stored<T> sa = store(a, m, k, Layout::RowMajor), sb = store(b, k, n, Layout::ColMajor);
      std::vector<T> c(m * n);
      cpu::smallGemm(m, n, k, sa.ref(), sb.ref(), c.data(), n, add.ref, relu);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          T w = want[i * n + j] + add.at(i, j);
          if (relu)
            w = w < 0 ? T(0) : w; // as torch.relu: NaN and -0.0 pass
          ASSERT_EQ(std::memcmp(&c[i * n + j], &w, sizeof(T)), 0)
              << dtypeName<T>() << " " << add.name << (relu ? " relu" : "") << " [" << m << ", "
              << k << "] x [" << k << ", " << n << "] element " << i << ", " << j;
        }
    }
}

template <typename T> void checkShapes() {
  std::mt19937 rng(42);
  constexpr int64_t L = 8;
  const int64_t ms[] = {1, 2, 3, 5, 32};
  const int64_t ns[] = {1, 3, L - 1, L, L + 1, 2 * L + 5, 128};
  const int64_t ks[] = {0, 1, 2, 7, L - 1, L, L + 1, 2 * L, 3 * L + 5, 128, 300};
  int checked = 0;
  for (int64_t m : ms)
    for (int64_t n : ns)
      for (int64_t k : ks) {
        // (The kernel computes any size; gemm() and matmul send it only smallGemmFits ones.)
        if (m * n * k > cpu::kSmallGemmMaxWork)
          continue;
        bool all = m <= 3 && n <= L + 1 && k <= 2 * L;
        checkShape<T>(rng, m, n, k, all);
        if (::testing::Test::HasFatalFailure())
          return;
        ++checked;
      }
  EXPECT_GT(checked, 300);
}

TEST(SmallGemm, DocumentedOrderEveryLayoutF32) { checkShapes<float>(); }
TEST(SmallGemm, DocumentedOrderEveryLayoutF64) { checkShapes<double>(); }

/// gemm() takes BLAS-style transpose flags and leading dimensions; beta = 1 accumulates.
template <typename T> void checkBlasEntry() {
  std::mt19937 rng(3);
  ASSERT_TRUE(cpu::smallGemmFits(3, 37, 21));
  const int64_t m = 3, n = 37, k = 21; // (smallGemmFits: 3 rows)
  std::vector<T> a = randomValues<T>(rng, m * k), b = randomValues<T>(rng, k * n);
  std::vector<T> c0 = randomValues<T>(rng, m * n);
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (T beta : {T(0), T(1)}) {
        // A stored as [k, m] when transposed, with 2 spare columns per row; likewise B.
        int64_t lda = (ta ? m : k) + 2, ldb = (tb ? k : n) + 2, ldc = n + 1;
        std::vector<T> sa((ta ? k : m) * lda, T(NAN)), sb((tb ? n : k) * ldb, T(NAN));
        for (int64_t i = 0; i < m; ++i)
          for (int64_t p = 0; p < k; ++p)
            (ta ? sa[p * lda + i] : sa[i * lda + p]) = a[i * k + p];
        for (int64_t p = 0; p < k; ++p)
          for (int64_t j = 0; j < n; ++j)
            (tb ? sb[j * ldb + p] : sb[p * ldb + j]) = b[p * n + j];
        std::vector<T> c(m * ldc, T(NAN));
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            c[i * ldc + j] = beta == T(1) ? c0[i * n + j] : T(NAN);
        cpu::gemm(ta, tb, m, n, k, sa.data(), lda, sb.data(), ldb, beta, c.data(), ldc);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            T w = orderedElement(a, b, n, k, i, j);
            if (beta == T(1))
              w = w + c0[i * n + j];
            ASSERT_EQ(std::memcmp(&c[i * ldc + j], &w, sizeof(T)), 0)
                << dtypeName<T>() << " transA " << ta << " transB " << tb << " beta " << beta
                << " element " << i << ", " << j;
          }
      }
}

TEST(SmallGemm, BlasStyleEntryF32) { checkBlasEntry<float>(); }
TEST(SmallGemm, BlasStyleEntryF64) { checkBlasEntry<double>(); }

} // namespace
