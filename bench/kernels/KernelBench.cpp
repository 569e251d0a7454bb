//===- bench/kernels/KernelBench.cpp - CPU kernel benchmarks ---------------===//
//
// The shapes of bench/kernels/numpy_twin.py, measured through the kernel table exactly as an
// engine calls kernels (output allocation included): matmul at the MLP's shapes and 512-2048
// squares, elementwise add/mul/tanh against a memcpy baseline (bytes moved per second),
// softmax, conv2d. bench/kernels/compare.py runs both and prints the ratios.
//
//===----------------------------------------------------------------------===//
#include "runtime/Kernel.h"
#include "runtime/Random.h"

#include <benchmark/benchmark.h>

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
  for (auto _ : state) benchmark::DoNotOptimize(run("matmul", {a, b}).rawData());
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * m * k * n, benchmark::Counter::kIsIterationInvariantRate,
                                                benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Matmul)
    ->Args({128, 784, 256})
    ->Args({128, 256, 10})
    ->Args({512, 512, 512})
    ->Args({1024, 1024, 1024})
    ->Args({2048, 2048, 2048})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

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
  for (auto _ : state) benchmark::DoNotOptimize(run(op, {a, b}).rawData());
  state.SetBytesProcessed(state.iterations() * 3 * n * 4);
}
void BM_Add(benchmark::State &state) { binary(state, "add"); }
void BM_Mul(benchmark::State &state) { binary(state, "mul"); }

void BM_Tanh(benchmark::State &state) {
  int64_t n = state.range(0);
  Tensor a = randn({n});
  for (auto _ : state) benchmark::DoNotOptimize(run("tanh", {a}).rawData());
  state.SetBytesProcessed(state.iterations() * 2 * n * 4);
}

BENCHMARK(BM_Memcpy)->Arg(1 << 16)->Arg(1 << 22)->UseRealTime();
BENCHMARK(BM_Add)->Arg(1 << 16)->Arg(1 << 22)->UseRealTime();
BENCHMARK(BM_Mul)->Arg(1 << 16)->Arg(1 << 22)->UseRealTime();
BENCHMARK(BM_Tanh)->Arg(1 << 16)->Arg(1 << 22)->UseRealTime();

void BM_Softmax(benchmark::State &state) {
  Tensor x = randn({state.range(0), state.range(1)});
  Attrs axis{{"axis", int64_t(-1)}};
  for (auto _ : state) benchmark::DoNotOptimize(run("softmax", {x}, axis).rawData());
}
BENCHMARK(BM_Softmax)->Args({128, 10})->Args({256, 1000})->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Conv2d(benchmark::State &state) {
  int64_t n = state.range(0), c = state.range(1), hw = state.range(2), o = state.range(3);
  Tensor x = randn({n, c, hw, hw}), w = randn({o, c, 3, 3});
  Attrs a{{"stride", int64_t(1)}, {"padding", int64_t(1)}};
  for (auto _ : state) benchmark::DoNotOptimize(run("conv2d", {x, w}, a).rawData());
}
BENCHMARK(BM_Conv2d)->Args({32, 1, 28, 8})->Args({32, 8, 14, 16})->Unit(benchmark::kMicrosecond)->UseRealTime();

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
