//===- bench/kernels/KernelBench.cpp - CPU kernel benchmarks ---------------===//
//
// The shapes of bench/kernels/numpy_twin.py, measured through the kernel table exactly as an
// engine calls kernels (output allocation included): matmul at the MLP's shapes and 512-2048
// squares, elementwise add/mul/tanh against a memcpy baseline (bytes moved per second),
// softmax, conv2d. bench/kernels/compare.py runs both and prints the ratios.
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/SmallGemm.h"
#include "runtime/Kernel.h"
#include "runtime/Random.h"

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <array>
#include <cstring>

using namespace dlm;
using namespace dlm::rt;

namespace {

Tensor randn(Shape shape) {
  Tensor t = Tensor::empty(DType::F32, shape);
  fillNormal(t);
  return t;
}

void BM_Matmul(benchmark::State &state) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  Tensor a = randn({m, k}), b = randn({k, n});
  for (auto _ : state)
    benchmark::DoNotOptimize(run("matmul", {a, b}).rawData());
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * m * k * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Matmul)
    ->Args({128, 784, 256})
    ->Args({128, 256, 10})
    ->Args({512, 512, 512})
    ->Args({1024, 1024, 1024})
    ->Args({2048, 2048, 2048})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

/// The unbatched recurrent step's products through the kernel (output allocation included):
/// args m, k, n, and whether b is the transposed view of a [n, k] tensor (`dz @ w.T`).
/// They take kernels/cpu/SmallGemm's direct loops.
void BM_SmallMatmul(benchmark::State &state) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  Tensor a = randn({m, k}), b = state.range(3) ? randn({n, k}).transpose() : randn({k, n});
  for (auto _ : state)
    benchmark::DoNotOptimize(run("matmul", {a, b}).rawData());
}
BENCHMARK(BM_SmallMatmul)
    ->Args({1, 32, 128, 0}) // h @ wh
    ->Args({1, 8, 128, 0})  // x @ wx
    ->Args({1, 128, 32, 1}) // dz @ wh.T
    ->Args({32, 1, 128, 0}) // h.T @ dz
    ->Args({16, 64, 64, 0})
    ->UseRealTime();

/// kernels/cpu/SmallGemm's loops and cblas_sgemm on the same operands: the measurements behind
/// smallGemmFits (1-3 rows or k = 1, m * n * k <= 65536). Args m, k, n.
template <bool Blas> void gemmEntry(benchmark::State &state) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  Tensor a = randn({m, k}), b = randn({k, n}), c = Tensor::empty(DType::F32, {m, n});
  const float *pa = a.data<float>(), *pb = b.data<float>();
  float *pc = c.data<float>();
  for (auto _ : state) {
    if (Blas)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, pa, k, pb, n, 0.0f, pc,
                  n);
    else
      cpu::smallGemm(m, n, k, {pa, k, 1}, {pb, n, 1}, pc, n, {nullptr, 0, 0}, false);
    benchmark::ClobberMemory();
  }
}
void BM_GemmSmallPath(benchmark::State &state) { gemmEntry<false>(state); }
void BM_GemmOpenBlas(benchmark::State &state) { gemmEntry<true>(state); }
void gemmSizes(benchmark::internal::Benchmark *b) {
  for (auto [m, k, n] : {std::array<int64_t, 3>{1, 32, 128},
                         {1, 8, 128},
                         {2, 32, 128},
                         {3, 64, 64},
                         {1, 256, 256},
                         {4, 64, 64},
                         {8, 8, 8},
                         {16, 16, 16},
                         {16, 64, 64},
                         {32, 1, 128},
                         {128, 1, 256}})
    b->Args({m, k, n});
  b->UseRealTime();
}
BENCHMARK(BM_GemmSmallPath)->Apply(gemmSizes);
BENCHMARK(BM_GemmOpenBlas)->Apply(gemmSizes);

void BM_Memcpy(benchmark::State &state) {
  int64_t n = state.range(0);
  Tensor a = randn({n}), out = Tensor::empty(DType::F32, {n});
  for (auto _ : state) {
    std::memcpy(out.rawData(), a.rawData(), n * 4);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * n * 4);
}

void binary(benchmark::State &state, const char *op) {
  int64_t n = state.range(0);
  Tensor a = randn({n}), b = randn({n});
  for (auto _ : state)
    benchmark::DoNotOptimize(run(op, {a, b}).rawData());
  state.SetBytesProcessed(state.iterations() * 3 * n * 4);
}
void BM_Add(benchmark::State &state) { binary(state, "add"); }
void BM_Mul(benchmark::State &state) { binary(state, "mul"); }

void BM_Tanh(benchmark::State &state) {
  int64_t n = state.range(0);
  Tensor a = randn({n});
  for (auto _ : state)
    benchmark::DoNotOptimize(run("tanh", {a}).rawData());
  state.SetBytesProcessed(state.iterations() * 2 * n * 4);
}

BENCHMARK(BM_Memcpy)->Arg(1 << 16)->Arg(1 << 22)->UseRealTime();
BENCHMARK(BM_Add)->Arg(1 << 16)->Arg(1 << 22)->UseRealTime();
BENCHMARK(BM_Mul)->Arg(1 << 16)->Arg(1 << 22)->UseRealTime();
BENCHMARK(BM_Tanh)->Arg(1 << 16)->Arg(1 << 22)->UseRealTime();

void BM_Softmax(benchmark::State &state) {
  Tensor x = randn({state.range(0), state.range(1)});
  Attrs axis{{"axis", int64_t(-1)}};
  for (auto _ : state)
    benchmark::DoNotOptimize(run("softmax", {x}, axis).rawData());
}
BENCHMARK(BM_Softmax)
    ->Args({128, 10})
    ->Args({256, 1000})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_Conv2d(benchmark::State &state) {
  int64_t n = state.range(0), c = state.range(1), hw = state.range(2), o = state.range(3);
  Tensor x = randn({n, c, hw, hw}), w = randn({o, c, 3, 3});
  Attrs a{{"stride", int64_t(1)}, {"padding", int64_t(1)}};
  for (auto _ : state)
    benchmark::DoNotOptimize(run("conv2d", {x, w}, a).rawData());
}
BENCHMARK(BM_Conv2d)
    ->Args({32, 1, 28, 8})
    ->Args({32, 8, 14, 16})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

/// conv2d, its two gradients and max pooling per activation layout, at the shapes of
/// examples/fashion_mnist_cnn.dlm and of crafted 3x3 and 1x1 layers: the measurements behind
/// compiler/opt/Layout.cpp's cost rule (bench/RESULTS.md "Layout"). Args: n, c, hw, o, k, pad,
/// nhwc (0/1).
void convLayout(benchmark::State &state, const char *op) {
  int64_t n = state.range(0), c = state.range(1), hw = state.range(2), o = state.range(3),
          k = state.range(4), pad = state.range(5);
  bool nhwc = state.range(6) != 0;
  Shape xs = nhwc ? Shape{n, hw, hw, c} : Shape{n, c, hw, hw};
  int64_t ohw = hw + 2 * pad - k + 1;
  Shape gs = nhwc ? Shape{n, ohw, ohw, o} : Shape{n, o, ohw, ohw};
  Tensor x = randn(xs), w = randn({o, c, k, k}), g = randn(gs);
  Attrs a{
      {"stride", int64_t(1)}, {"padding", pad}, {"layout", std::string(nhwc ? "NHWC" : "NCHW")}};
  a.set("input_shape", xs).set("weight_shape", Shape{o, c, k, k});
  std::string name = op;
  for (auto _ : state) {
    if (name == "conv2d")
      benchmark::DoNotOptimize(run("conv2d", {x, w}, a).rawData());
    else if (name == "conv2d_grad_input")
      benchmark::DoNotOptimize(run("conv2d_grad_input", {g, w}, a).rawData());
    else
      benchmark::DoNotOptimize(run("conv2d_grad_weight", {x, g}, a).rawData());
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * n * ohw * ohw * o * c * k * k,
                                                benchmark::Counter::kIsIterationInvariantRate,
                                                benchmark::Counter::kIs1000);
}
void BM_Conv2dLayout(benchmark::State &state) { convLayout(state, "conv2d"); }
void BM_Conv2dGradInputLayout(benchmark::State &state) { convLayout(state, "conv2d_grad_input"); }
void BM_Conv2dGradWeightLayout(benchmark::State &state) { convLayout(state, "conv2d_grad_weight"); }
void convLayoutShapes(benchmark::internal::Benchmark *b) {
  for (int64_t nhwc : {0, 1}) {
    b->Args({64, 1, 28, 16, 5, 2, nhwc});    // the CNN's first layer
    b->Args({64, 16, 14, 32, 5, 2, nhwc});   // the CNN's second layer
    b->Args({32, 32, 28, 32, 3, 1, nhwc});   // 3x3, 32 channels
    b->Args({32, 64, 14, 64, 3, 1, nhwc});   // 3x3, 64 channels
    b->Args({32, 16, 28, 16, 1, 0, nhwc});   // 1x1, 16 channels
    b->Args({32, 64, 28, 64, 1, 0, nhwc});   // 1x1, 64 channels
    b->Args({32, 256, 14, 256, 1, 0, nhwc}); // 1x1, 256 channels
  }
  b->Unit(benchmark::kMicrosecond)->UseRealTime();
}
BENCHMARK(BM_Conv2dLayout)->Apply(convLayoutShapes);
BENCHMARK(BM_Conv2dGradInputLayout)->Apply(convLayoutShapes);
BENCHMARK(BM_Conv2dGradWeightLayout)->Apply(convLayoutShapes);

/// max_pool2d (k = 2) and its gradient per layout. Args: n, c, hw, nhwc.
void BM_MaxPoolLayout(benchmark::State &state) {
  int64_t n = state.range(0), c = state.range(1), hw = state.range(2);
  bool nhwc = state.range(3) != 0;
  Tensor x = randn(nhwc ? Shape{n, hw, hw, c} : Shape{n, c, hw, hw});
  Tensor g = randn(nhwc ? Shape{n, hw / 2, hw / 2, c} : Shape{n, c, hw / 2, hw / 2});
  Attrs a{{"k", int64_t(2)}, {"layout", std::string(nhwc ? "NHWC" : "NCHW")}};
  for (auto _ : state) {
    benchmark::DoNotOptimize(run("max_pool2d", {x}, a).rawData());
    benchmark::DoNotOptimize(run("max_pool2d_grad", {x, g}, a).rawData());
  }
}
BENCHMARK(BM_MaxPoolLayout)
    ->Args({64, 16, 28, 0})
    ->Args({64, 16, 28, 1})
    ->Args({64, 32, 14, 0})
    ->Args({64, 32, 14, 1})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

/// What one boundary transpose of the layout pass costs: NCHW -> NHWC as a contiguous copy.
void BM_TransposeToNhwc(benchmark::State &state) {
  int64_t n = state.range(0), c = state.range(1), hw = state.range(2);
  Tensor x = randn({n, c, hw, hw});
  for (auto _ : state)
    benchmark::DoNotOptimize(x.transpose({0, 2, 3, 1}).contiguous().rawData());
  state.SetItemsProcessed(state.iterations() * n * c * hw * hw);
}
BENCHMARK(BM_TransposeToNhwc)
    ->Args({64, 16, 28})
    ->Args({64, 32, 14})
    ->Args({32, 256, 14})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

/// The fixed cost of one kernel call (lookup, dispatch, a 0-d output): what a scalar op costs
/// an engine that goes through the kernel table.
void BM_CallOverhead(benchmark::State &state) {
  Tensor a = Tensor::scalarF64(1.5), b = Tensor::scalarF64(2.5);
  const KernelInfo *add = findKernel("add");
  std::vector<Value> ins = {a, b}, outs;
  for (auto _ : state) {
    outs.clear();
    benchmark::DoNotOptimize(callKernel(*add, ins, {}, outs).ok());
  }
}
BENCHMARK(BM_CallOverhead);

} // namespace

BENCHMARK_MAIN();
