//===- tests/kernels/LinalgTest.cpp - matmul_bias against the unfused ops --===//
//
// matmul_bias(a, b, bias){relu} is what the optimizer's fuse-library pass puts in place of
// relu?(a @ b + bias), and the pass promises the same numbers bit for bit (docs/opt.md). The
// kernel adds the bias in the GEMM's output buffer: over plain rows when the bias is one
// contiguous row of a contiguous product ([n] or [1, n]), by a strided loop otherwise. Both
// paths are checked here against running matmul, add and relu one after the other; so is the
// small-product path (kernels/cpu/SmallGemm.h), which adds the bias in the same pass, and its
// independence of the operands' layout; and the accumulate form the engines call when they hold
// the addend alone (matmulBiasAccumulate, dlm_matmul_bias_accumulate).
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/CpuKernels.h"
#include "runtime/CApi.h"
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

void expectSameBytes(const Tensor &x, const Tensor &y, const std::string &what) {
  ASSERT_EQ(x.shape(), y.shape()) << what;
  ASSERT_EQ(x.dtype(), y.dtype()) << what;
  Tensor cx = x.contiguous(), cy = y.contiguous();
  EXPECT_EQ(std::memcmp(cx.rawData(), cy.rawData(), cx.numel() * cx.elementSize()), 0) << what;
}

/// Runs matmul_bias and the unfused chain on the same operands; expects the same bytes.
void expectFusedEqualsUnfused(const Tensor &a, const Tensor &b, const Tensor &bias,
                              const std::string &what) {
  for (bool relu : {false, true}) {
    Tensor fused = run("matmul_bias", {a, b, bias}, Attrs{{"relu", relu}});
    Tensor want = run("add", {run("matmul", {a, b}), bias});
    if (relu)
      want = run("relu", {want});
    expectSameBytes(fused, want, what + (relu ? " relu" : ""));
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
    expectFusedEqualsUnfused(normal(dt, {2, 5, 7}), b, normal(dt, {6}),
                             name + " batched [2, 5, 7]");
    // A strided bias (every other element of a row) takes the strided loop.
    Tensor wide = normal(dt, {12});
    Tensor strided = wide.view({6}, {2}, 0);
    ASSERT_FALSE(strided.isContiguous());
    expectFusedEqualsUnfused(a, b, strided, name + " strided bias");
    // The same addends on a 3-row product, which takes the small path (SmallGemm.h) and adds
    // them in its own pass; and a 0-d addend.
    Tensor a3 = normal(dt, {3, 7});
    expectFusedEqualsUnfused(a3, b, normal(dt, {6}), name + " small, row bias [6]");
    expectFusedEqualsUnfused(a3, b, normal(dt, {1, 6}), name + " small, row bias [1, 6]");
    expectFusedEqualsUnfused(a3, b, normal(dt, {3, 6}), name + " small, full bias [3, 6]");
    expectFusedEqualsUnfused(a3, b, normal(dt, {3, 1}), name + " small, column bias [3, 1]");
    expectFusedEqualsUnfused(a3, b, normal(dt, {}), name + " small, 0-d bias");
    expectFusedEqualsUnfused(a3, b, strided, name + " small, strided bias");
    // Empty products.
    expectFusedEqualsUnfused(normal(dt, {0, 7}), b, normal(dt, {6}), name + " no rows");
    expectFusedEqualsUnfused(a, normal(dt, {7, 0}), normal(dt, {0}), name + " no columns");
  }
}

/// Small products (kernels/cpu/SmallGemm.h) through the kernels: the LSTM's products with their
/// transposed views give the bits of the same products on contiguous copies, and matmul_bias
/// accumulating into a gradient is add(matmul) (also for the small path's 1-3-row shapes above).
TEST(Linalg, SmallProductsIgnoreLayout) {
  seed(11);
  for (DType dt : {DType::F32, DType::F64}) {
    std::string name = dt == DType::F32 ? "f32" : "f64";
    Tensor h = normal(dt, {1, 32}), w = normal(dt, {32, 128}), dz = normal(dt, {1, 128});
    // dz @ w.T: a transposed view, as autodiff produces it.
    Tensor wt = w.transpose();
    expectSameBytes(run("matmul", {dz, wt}), run("matmul", {dz, wt.contiguous()}),
                    name + " dz @ w.T");
    // h.T @ dz accumulated into a gradient: the [32, 1] view of a [1, 32] row.
    Tensor ht = h.transpose(), acc = normal(dt, {32, 128});
    expectFusedEqualsUnfused(ht, dz, acc, name + " acc + h.T @ dz");
    expectSameBytes(run("matmul_bias", {ht, dz, acc}, Attrs{{"relu", false}}),
                    run("add", {run("matmul", {ht.contiguous(), dz}), acc}),
                    name + " h.T vs its copy");
    // Every element of an outer product is the rounded product.
    expectSameBytes(run("matmul", {ht, dz}), run("mul", {ht.contiguous(), dz}),
                    name + " outer product");
    // A strided (every other column) left operand; a 3-row product with a row bias.
    Tensor wide = normal(dt, {3, 64});
    Tensor strided = wide.view({3, 32}, {64, 2}, 0);
    expectSameBytes(run("matmul", {strided, w}), run("matmul", {strided.contiguous(), w}),
                    name + " strided");
    expectFusedEqualsUnfused(strided, w, normal(dt, {128}), name + " strided, row bias");
    // Negative strides (x[::-1] views): rows reversed, columns reversed.
    Tensor rowsReversed = w.view({32, 128}, {-128, 1}, 31 * 128);
    Tensor colsReversed = w.view({32, 128}, {128, -1}, 127);
    expectSameBytes(run("matmul", {h, rowsReversed}), run("matmul", {h, rowsReversed.contiguous()}),
                    name + " rows reversed");
    expectSameBytes(run("matmul", {h, colsReversed}), run("matmul", {h, colsReversed.contiguous()}),
                    name + " columns reversed");
    expectSameBytes(run("matmul", {dz, colsReversed.transpose()}),
                    run("matmul", {dz, colsReversed.transpose().contiguous()}),
                    name + " reversed w.T");
  }
}

/// matmulBiasAccumulate(a, b, acc) over a copy of acc: true, acc's own buffer (no new one)
/// holding the bytes of matmul_bias into a fresh output.
void expectAccumulatesInPlace(const Tensor &a, const Tensor &b, const Tensor &acc,
                              const std::string &what) {
  for (bool relu : {false, true}) {
    Tensor want = run("matmul_bias", {a, b, acc}, Attrs{{"relu", relu}});
    Tensor into = acc.clone();
    void *data = into.rawData();
    ASSERT_TRUE(cpu::matmulBiasAccumulate(a, b, into, relu)) << what;
    EXPECT_EQ(into.rawData(), data) << what;
    expectSameBytes(into, want, what + (relu ? " relu" : ""));
  }
}

/// acc is refused (false) and left as it was.
void expectRefused(const Tensor &a, const Tensor &b, const Tensor &acc, const std::string &what) {
  Tensor before = acc.clone();
  EXPECT_FALSE(cpu::matmulBiasAccumulate(a, b, acc, false)) << what;
  expectSameBytes(acc, before, what + " (unchanged)");
}

/// The accumulate form (an engine holding matmul_bias's addend alone writes the sum over it,
/// docs/runtime.md "In place"): every small-path loop nest (outer products, rows of b
/// contiguous, x @ w.T dot products, strided operands, k = 0) gives the fresh output's bits.
TEST(Linalg, MatmulBiasAccumulateForms) {
  seed(13);
  for (DType dt : {DType::F32, DType::F64}) {
    std::string name = dt == DType::F32 ? "f32" : "f64";
    // The LSTM's weight gradients: acc [32, 128] + h.T @ dz, h.T a [32, 1] view of a row.
    Tensor h = normal(dt, {1, 32}), x = normal(dt, {1, 8}), dz = normal(dt, {1, 128});
    expectAccumulatesInPlace(h.transpose(), dz, normal(dt, {32, 128}),
                             name + " [32, 1] x [1, 128]");
    expectAccumulatesInPlace(x.transpose(), dz, normal(dt, {8, 128}), name + " [8, 1] x [1, 128]");
    // 1-3 rows with k around the lane count; b's rows contiguous, odd column counts.
    for (int64_t m : {1, 2, 3})
      for (int64_t k : {0, 2, 7, 8, 9, 33})
        for (int64_t n : {1, 5, 8, 37}) {
          std::string shape = name + " [" + std::to_string(m) + ", " + std::to_string(k) + "] x [" +
                              std::to_string(k) + ", " + std::to_string(n) + "]";
          expectAccumulatesInPlace(normal(dt, {m, k}), normal(dt, {k, n}), normal(dt, {m, n}),
                                   shape);
          // x @ w.T (b's columns contiguous) and a strided left operand.
          expectAccumulatesInPlace(normal(dt, {m, k}), normal(dt, {n, k}).transpose(),
                                   normal(dt, {m, n}), shape + " b transposed");
          Tensor wide = normal(dt, {m, 2 * k});
          expectAccumulatesInPlace(wide.view({m, k}, {2 * k, 2}, 0), normal(dt, {k, n}),
                                   normal(dt, {m, n}), shape + " a strided");
        }
  }
}

/// What matmulBiasAccumulate leaves to the ordinary kernel: an addend that is not a dense
/// [m, n] tensor of the operands' dtype, and products OpenBLAS computes (whose beta = 1 would
/// round differently from a fresh output plus the addend).
TEST(Linalg, MatmulBiasAccumulateRefuses) {
  seed(17);
  Tensor a = normal(DType::F32, {2, 8}), b = normal(DType::F32, {8, 6});
  expectRefused(a, b, normal(DType::F32, {6, 2}).transpose(), "a transposed addend");
  expectRefused(a, b, normal(DType::F32, {6}), "a row addend [6] (broadcast)");
  expectRefused(a, b, normal(DType::F32, {1, 6}), "a row addend [1, 6] (broadcast)");
  expectRefused(a, b, normal(DType::F64, {2, 6}), "an f64 addend");
  expectRefused(normal(DType::F32, {5, 8}), b, normal(DType::F32, {5, 6}), "5 rows (OpenBLAS)");
  expectRefused(normal(DType::F32, {2, 8, 8}), b, normal(DType::F32, {2, 8, 6}),
                "a batched product");
  Tensor ia = run("cast", {a}, Attrs{{"dtype", DType::I64}}),
         ib = run("cast", {b}, Attrs{{"dtype", DType::I64}});
  expectRefused(ia, ib, run("cast", {normal(DType::F32, {2, 6})}, Attrs{{"dtype", DType::I64}}),
                "integers");
}

/// isSoleOwner: a second handle or a view of the buffer (a stack entry, a slice) makes the
/// tensor shared.
TEST(Linalg, SoleOwner) {
  Tensor t = normal(DType::F32, {4, 4});
  EXPECT_TRUE(cpu::isSoleOwner(t));
  {
    Tensor copy = t;
    EXPECT_FALSE(cpu::isSoleOwner(t));
  }
  EXPECT_TRUE(cpu::isSoleOwner(t));
  {
    Tensor view = t.transpose();
    EXPECT_FALSE(cpu::isSoleOwner(t));
  }
  EXPECT_TRUE(cpu::isSoleOwner(t));
}

/// The C ABI entry the JIT calls: the addend itself comes back when the caller holds it alone,
/// a new tensor (the addend untouched) when another reference exists.
TEST(Linalg, MatmulBiasAccumulateCApi) {
  seed(19);
  Tensor ht = normal(DType::F32, {1, 32}).transpose(), dz = normal(DType::F32, {1, 128});
  Tensor acc = normal(DType::F32, {32, 128});
  Tensor want = run("matmul_bias", {ht, dz, acc}, Attrs{{"relu", false}});
  int32_t id = dlm_kernel_id("matmul_bias");
  dlm_attrs *attrs = dlm_attrs_new();
  dlm_attrs_set_bool(attrs, "relu", 0);
  Tensor held = acc.clone(), other = held; // two references: not the caller's alone
  dlm_tensor *ins[3] = {(dlm_tensor *)ht.get(), (dlm_tensor *)dz.get(), (dlm_tensor *)held.get()};
  Tensor before = held.clone();
  dlm_tensor *fresh = dlm_matmul_bias_accumulate(id, ins, attrs);
  ASSERT_NE(fresh, nullptr);
  EXPECT_NE(fresh, ins[2]);
  expectSameBytes(Tensor::adopt((TensorImpl *)fresh), want, "shared addend: a new result");
  expectSameBytes(held, before, "shared addend untouched");
  other = Tensor();
  dlm_tensor *same = dlm_matmul_bias_accumulate(id, ins, attrs);
  EXPECT_EQ(same, ins[2]);
  expectSameBytes(held, want, "sole addend: accumulated in place");
  dlm_attrs_free(attrs);
}

} // namespace
