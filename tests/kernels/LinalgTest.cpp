//===- tests/kernels/LinalgTest.cpp - matmul_bias against the unfused ops --===//
//
// matmul_bias(a, b, bias){relu} is what the optimizer's fuse-library pass puts in place of
// relu?(a @ b + bias), and the pass promises the same numbers bit for bit (docs/opt.md). The
// kernel adds the bias in the GEMM's output buffer: over plain rows when the bias is one
// contiguous row of a contiguous product ([n] or [1, n]), by a strided loop otherwise. Both
// paths are checked here against running matmul, add and relu one after the other.
//
//===----------------------------------------------------------------------===//
#include "runtime/Kernel.h"
#include "runtime/Random.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace dlm;
using namespace dlm::rt;

namespace {

Tensor normal(DType dt, Shape shape) {
  return run("randn", {}, Attrs{{"shape", std::vector<int64_t>(shape)}, {"dtype", dt}});
}

/// Runs matmul_bias and the unfused chain on the same operands; expects the same bytes.
void expectFusedEqualsUnfused(const Tensor &a, const Tensor &b, const Tensor &bias, const std::string &what) {
  for (bool relu : {false, true}) {
    Tensor fused = run("matmul_bias", {a, b, bias}, Attrs{{"relu", relu}});
    Tensor want = run("add", {run("matmul", {a, b}), bias});
    if (relu) want = run("relu", {want});
    std::string label = what + (relu ? " relu" : "");
    ASSERT_EQ(fused.shape(), want.shape()) << label;
    ASSERT_EQ(fused.dtype(), want.dtype()) << label;
    Tensor f = fused.contiguous(), w = want.contiguous();
    EXPECT_EQ(std::memcmp(f.rawData(), w.rawData(), f.numel() * f.elementSize()), 0) << label;
  }
}

TEST(Linalg, MatmulBiasMatchesUnfusedOps) {
  seed(7);
  for (DType dt : {DType::F32, DType::F64}) {
    std::string name = dt == DType::F32 ? "f32" : "f64";
    Tensor a = normal(dt, {5, 7}), b = normal(dt, {7, 6});
    expectFusedEqualsUnfused(a, b, normal(dt, {6}), name + " row bias [6]");
    expectFusedEqualsUnfused(a, b, normal(dt, {1, 6}), name + " row bias [1, 6]");
    expectFusedEqualsUnfused(a, b, normal(dt, {5, 6}), name + " full bias [5, 6]");
    expectFusedEqualsUnfused(a, b, normal(dt, {5, 1}), name + " column bias [5, 1]");
    expectFusedEqualsUnfused(normal(dt, {2, 5, 7}), b, normal(dt, {6}), name + " batched [2, 5, 7]");
    // A strided bias (every other element of a row) takes the strided loop.
    Tensor wide = normal(dt, {12});
    Tensor strided = wide.view({6}, {2}, 0);
    ASSERT_FALSE(strided.isContiguous());
    expectFusedEqualsUnfused(a, b, strided, name + " strided bias");
    // Empty products.
    expectFusedEqualsUnfused(normal(dt, {0, 7}), b, normal(dt, {6}), name + " no rows");
    expectFusedEqualsUnfused(a, normal(dt, {7, 0}), normal(dt, {0}), name + " no columns");
  }
}

} // namespace
