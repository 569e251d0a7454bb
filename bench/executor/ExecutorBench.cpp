//===- bench/executor/ExecutorBench.cpp - Graph executor overhead ----------===//
//
// Nanoseconds per executed node (live or dead) for graphs whose kernels do almost nothing, so
// the figure is the executor's own cost: taking inputs out of slots, dispatching, propagating
// outputs, pending counts, frames and iterations. Reported as the `per_node` counter (CPU
// time per executed node; the table's Time column is wall time).
//
//   Chain/Identity  100 000 Identity nodes in a chain (no kernel call at all)
//   Chain/neg       100 000 `neg` kernels on a 0-d i64 (one tiny allocation each)
//   Loop            `i = 0; s = 0; while i < n: s += i; i += 1` for 100 000 iterations
//                   (Merge, Switch, LoopCond, NextIteration, Exit... ~14 nodes per iteration)
//
// Each runs on one thread (the executor inline path) and on the default thread count.
//
//===----------------------------------------------------------------------===//
#include "tests/executor/ExecBuilders.h"

#include <benchmark/benchmark.h>

namespace dlm::rt {
namespace {

using namespace dlm::rt::test;

constexpr int64_t kNodes = 100000;

void runAndReport(benchmark::State &state, ExecGraph &g, ExecPort fetch) {
  if (Status s = g.finalize(); !s) {
    state.SkipWithError(s.message().c_str());
    return;
  }
  RunOptions opts;
  opts.numThreads = (int)state.range(0);
  opts.fetches = {fetch};
  int64_t nodes = 0;
  for (auto _ : state) {
    RunResult r = runGraph(g, opts);
    if (!r.ok()) {
      state.SkipWithError(r.errorString().c_str());
      return;
    }
    nodes = r.stats.nodesRun;
    benchmark::DoNotOptimize(r.fetched);
  }
  state.counters["nodes"] = (double)nodes;
  // CPU time of the calling thread per node (printed with an SI prefix: "54.3n" is 54.3 ns).
  // All nodes here are cheap, so they all run inline on the calling thread: its CPU time is
  // the run's whole cost, and unlike wall time it does not count other processes' load.
  state.counters["per_node"] = benchmark::Counter(
      (double)nodes, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void chain(benchmark::State &state, const char *opName) {
  ExecGraph g;
  ExecPort cur = out(constI64(g, 1));
  for (int64_t i = 0; i < kNodes; ++i)
    cur = out(g.addNode(opName, {cur}));
  runAndReport(state, g, cur);
}

void BM_ChainIdentity(benchmark::State &state) { chain(state, "Identity"); }
void BM_ChainNeg(benchmark::State &state) { chain(state, "neg"); }

void BM_Loop(benchmark::State &state) {
  ExecGraph g;
  std::vector<ExecPort> res = buildCountedLoop(
      g, 0, "loop", 16, kNodes, {out(constI64(g, 0))}, [](ExecGraph &g, const LoopBody &b) {
        return std::vector<ExecPort>{out(op(g, "add", {b.vars[1], b.vars[0]}, b.frame))};
      });
  runAndReport(state, g, res[0]);
}

BENCHMARK(BM_ChainIdentity)->ArgName("threads")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChainNeg)->ArgName("threads")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Loop)->ArgName("threads")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace dlm::rt

BENCHMARK_MAIN();
