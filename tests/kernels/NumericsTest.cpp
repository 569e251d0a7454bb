//===- tests/kernels/NumericsTest.cpp - NaN rules and rounding orders -----===//
//
// Two promises of the CPU kernels that tolerance-based tests cannot see:
//  - NaN follows PyTorch through the ops that compare by max or min: relu keeps NaN (and -0.0)
//    in every place it is computed (the kernel, its gradient, matmul_bias's fused epilogue on
//    the small-product path and after OpenBLAS, with a row or a strided bias), logsumexp of a
//    row holding NaN is NaN (docs/ops.md "NaN").
//  - Reduce.cpp is compiled with -ffp-contract=off, so norm's documented front-to-back order is
//    the order of rounded products and sums: it equals, bit for bit, the loop written here
//    (this file is compiled without FMA contraction or FMA instructions). Built -march=native
//    with GCC's default contraction, its f64 sum of squares was a chain of fused multiply-adds
//    and differed.
//
//===----------------------------------------------------------------------===//
#include "runtime/Kernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace dlm;
using namespace dlm::rt;

namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

Tensor randomF64(const Shape &shape, double lo, double hi, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Tensor t = Tensor::empty(DType::F64, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data<double>()[i] = u(g);
  return t;
}

/// [NaN, -2, -0.0, 0.5, +inf, -inf, 3] in `dt`, then its relu as PyTorch computes it.
Tensor reluInput(DType dt) {
  return Tensor::fromVector<double>(DType::F64, {NAN, -2.0, -0.0, 0.5, INFINITY, -INFINITY, 3.0})
      .to(dt);
}
const std::vector<double> kReluWant = {NAN, 0.0, -0.0, 0.5, INFINITY, 0.0, 3.0};

void expectElements(const Tensor &got, const std::vector<double> &want, const std::string &what) {
  ASSERT_EQ(got.numel(), (int64_t)want.size()) << what;
  Tensor flat = got.contiguous().reshape({-1});
  for (int64_t i = 0; i < flat.numel(); ++i) {
    double g = flat.getF64({i}), w = want[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << what << " [" << i << "] = " << g;
      continue;
    }
    EXPECT_TRUE(sameBits(g, w)) << what << " [" << i << "] = " << g << ", want " << w;
  }
}

TEST(NanRules, ReluKeepsNanAndNegativeZero) {
  for (DType dt : {DType::F32, DType::F64}) {
    Tensor x = reluInput(dt);
    expectElements(run("relu", {x}), kReluWant, "relu");
    // A strided view takes the strided loop.
    Tensor wide = Tensor::zeros(dt, {7, 2});
    Tensor view = wide.view({7}, {2}, 0);
    copyInto(view, x);
    expectElements(run("relu", {view}), kReluWant, "relu of a view");
    // relu_grad(x, g): 0 where x <= 0, else g (NaN passes g).
    expectElements(
        run("relu_grad", {x, Tensor::fromVector<double>(DType::F64, {1, 2, 3, 4, 5, 6, 7}).to(dt)}),
        {1, 0, 0, 4, 5, 0, 7}, "relu_grad");
  }
}

/// matmul_bias {relu} of ones(m, k) @ ones(k, n) (every product k) and a bias making column
/// (or row) 1 NaN and 2 negative: NaN stays NaN, the negative sum becomes +0.
void checkFusedRelu(int64_t m, int64_t k, int64_t n, bool columnBias, DType dt) {
  int64_t len = columnBias ? m : n;
  std::vector<double> b(len, 0.0);
  b[1] = NAN;
  b[2] = -2.0 * (double)k;
  Tensor bias = Tensor::fromVector<double>(DType::F64, b).to(dt);
  if (columnBias)
    bias = bias.reshape({m, 1});
  Attrs relu;
  relu.set("relu", true);
  Tensor a = run("add", {Tensor::zeros(dt, {m, k}), Tensor::scalarF64(1.0)});
  Tensor w = run("add", {Tensor::zeros(dt, {k, n}), Tensor::scalarF64(1.0)});
  Tensor out = run("matmul_bias", {a, w, bias}, relu);
  std::string what = "matmul_bias relu [" + std::to_string(m) + ", " + std::to_string(k) + "] x [" +
                     std::to_string(k) + ", " + std::to_string(n) +
                     (columnBias ? "] column bias" : "] row bias");
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t at = columnBias ? i : j;
      double g = out.getF64({i, j});
      if (at == 1)
        EXPECT_TRUE(std::isnan(g)) << what << " at " << i << ", " << j;
      else
        EXPECT_TRUE(sameBits(g, at == 2 ? 0.0 : (double)k))
            << what << " at " << i << ", " << j << ": " << g;
    }
}

TEST(NanRules, MatmulBiasReluKeepsNan) {
  for (DType dt : {DType::F32, DType::F64}) {
    checkFusedRelu(2, 8, 16, false, dt);   // small product: vector epilogue
    checkFusedRelu(1, 3, 5, false, dt);    // small product: scalar epilogue
    checkFusedRelu(64, 64, 16, false, dt); // OpenBLAS, then the row bias
    checkFusedRelu(64, 64, 16, true, dt);  // OpenBLAS, then the strided (column) bias
  }
}

TEST(NanRules, LogsumexpOfARowWithNanIsNan) {
  Attrs last;
  last.set("axes", std::vector<int64_t>{1}).set("keepdims", false);
  Tensor x = Tensor::fromVector<double>(
      DType::F64, {NAN, INFINITY, NAN, -INFINITY, 1.0, NAN, 1.0, 2.0}, {4, 2});
  Tensor l = run("logsumexp", {x}, last);
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_TRUE(std::isnan(l.getF64({i}))) << "row " << i;
  EXPECT_NEAR(l.getF64({3}), 2.0 + std::log1p(std::exp(-1.0)), 1e-15);
  EXPECT_TRUE(std::isnan(run("logsumexp", {Tensor::fromVector<double>(DType::F64, {NAN})}).item()));
}

TEST(Rounding, NormIsAnUnfusedFrontToBackSum) {
  // Short rows of similar magnitudes: a fused a * a + s rounds differently from the rounded
  // product plus s often enough to show after the square root (long sums of squares hide it).
  const int64_t rows = 64, cols = 3;
  Tensor x = randomF64({rows, cols}, 1, 2, 7);
  Attrs last;
  last.set("axes", std::vector<int64_t>{1}).set("keepdims", false);
  Tensor n = run("norm", {x}, last);
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t i = 0; i < cols; ++i) {
      double v = x.getF64({r, i});
      double sq = v * v; // rounded, then added
      s += sq;
    }
    EXPECT_TRUE(sameBits(n.getF64({r}), std::sqrt(s)))
        << "row " << r << ": " << n.getF64({r}) << " vs " << std::sqrt(s);
  }
}

} // namespace
