//===- tests/executor/ExecutorTest.cpp - Graph executor on hand-built graphs ===//
//
// Each test builds a graph the way lowering would (TestKernels.h) and checks what the executor
// computes, what it runs (call counters on the untaken side of a Switch must stay zero), what
// state it holds (ExecStats: frames, iterations and values freed when done) and how it stops on
// errors. Multi-threaded runs use a private pool so the tests do not depend on the machine.
//
//===----------------------------------------------------------------------===//
#include "tests/executor/TestKernels.h"

#include <gtest/gtest.h>

#include <functional>

namespace dlm::rt {
namespace {

using namespace dlm::rt::test;

class ExecutorTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerTestKernels();
    resetCallCounts();
  }

  /// Finalizes `g` and runs it with `threads` threads, fetching `fetches`.
  RunResult run(ExecGraph &g, std::vector<ExecPort> fetches, int threads = 1) {
    Status s = g.finalize();
    EXPECT_TRUE(s.ok()) << s.message();
    RunOptions opts;
    opts.numThreads = threads;
    opts.pool = &pool;
    opts.fetches = std::move(fetches);
    return runGraph(g, opts);
  }

  /// Expects a complete run that left nothing behind.
  static void expectClean(const RunResult &r) {
    EXPECT_TRUE(r.ok()) << r.errorString();
    EXPECT_EQ(r.stats.liveFrames, 0);
    EXPECT_EQ(r.stats.liveIterations, 0);
    EXPECT_EQ(r.stats.liveValues, 0);
  }

  ThreadPool pool{3};
};

TEST_F(ExecutorTest, StraightLine) {
  ExecGraph g;
  ExecNodeId a = constI64(g, 2), b = constI64(g, 3);
  ExecNodeId sum = op(g, "add", {out(a), out(b)});
  ExecNodeId prod = op(g, "mul", {out(sum), out(b)});
  RunResult r = run(g, {out(sum), out(prod)});
  expectClean(r);
  EXPECT_EQ(scalarOf(r.fetched[0]), 5);
  EXPECT_EQ(scalarOf(r.fetched[1]), 15);
  EXPECT_EQ(r.stats.nodesRun, 4);
  EXPECT_EQ(r.stats.deadNodes, 0);
}

/// if pred: y = count0(x) * 2 else: y = count1(x) + 100 — only the taken side runs.
ExecGraph buildCond(bool predValue, std::vector<ExecPort> &fetches) {
  ExecGraph g;
  ExecNodeId x = constI64(g, 7);
  ExecNodeId pred = constBool(g, predValue);
  ExecNodeId sw = g.addNode("Switch", {out(x), out(pred)}, 2);
  ExecNodeId thenSide = op(g, "test_count", {out(sw, 1)}, 0, Attrs{{"slot", int64_t(0)}});
  ExecNodeId pivotT = g.addNode("Identity", {out(sw, 1)});
  ExecNodeId two = constI64(g, 2, 0, pivotT);
  ExecNodeId thenVal = op(g, "mul", {out(thenSide), out(two)});
  ExecNodeId elseSide = op(g, "test_count", {out(sw, 0)}, 0, Attrs{{"slot", int64_t(1)}});
  ExecNodeId pivotF = g.addNode("Identity", {out(sw, 0)});
  ExecNodeId hundred = constI64(g, 100, 0, pivotF);
  ExecNodeId elseVal = op(g, "add", {out(elseSide), out(hundred)});
  ExecNodeId merge = g.addNode("Merge", {out(elseVal), out(thenVal)}, 2);
  fetches = {out(merge, 0), out(merge, 1), out(thenVal)};
  return g;
}

TEST_F(ExecutorTest, CondRunsOnlyTheTakenSide) {
  for (bool p : {true, false}) {
    resetCallCounts();
    std::vector<ExecPort> fetches;
    ExecGraph g = buildCond(p, fetches);
    RunResult r = run(g, fetches);
    expectClean(r);
    EXPECT_EQ(scalarOf(r.fetched[0]), p ? 14 : 107);
    EXPECT_EQ(scalarOf(r.fetched[1]), p ? 1 : 0) << "Merge's value_index is the live input";
    EXPECT_EQ(callCount(0), p ? 1 : 0);
    EXPECT_EQ(callCount(1), p ? 0 : 1);
    // The untaken side (count, identity, const, op) forwarded dead tokens without running.
    EXPECT_EQ(r.stats.deadNodes, 4);
    EXPECT_EQ(r.fetchedLive[2], p) << "a fetched output on the dead side is dead";
  }
}

/// i = 0; s = 0; while i < 10: s += i; i += 1
TEST_F(ExecutorTest, WhileLoop) {
  for (int parallel : {1, 2, 10}) {
    ExecGraph g;
    std::vector<ExecPort> res = buildCountedLoop(
        g, 0, "loop", parallel, 10, {out(constI64(g, 0))}, [](ExecGraph &g, const LoopBody &b) {
          return std::vector<ExecPort>{out(op(g, "add", {b.vars[1], b.vars[0]}, b.frame))};
        });
    RunResult r = run(g, {res[0]});
    expectClean(r);
    EXPECT_EQ(scalarOf(r.fetched[0]), 45);
    EXPECT_EQ(r.stats.framesCreated, 1);
    EXPECT_EQ(r.stats.iterationsStarted, 11) << "ten body iterations and the one that exits";
    EXPECT_LE(r.stats.peakLiveIterations, parallel);
  }
}

TEST_F(ExecutorTest, LoopWithZeroIterations) {
  ExecGraph g;
  std::vector<ExecPort> res = buildCountedLoop(
      g, 0, "loop", 4, 0, {out(constI64(g, 42))}, [](ExecGraph &g, const LoopBody &b) {
        return std::vector<ExecPort>{
            out(op(g, "test_count", {b.vars[1]}, b.frame, Attrs{{"slot", int64_t(0)}}))};
      });
  RunResult r = run(g, {res[0]});
  expectClean(r);
  EXPECT_EQ(scalarOf(r.fetched[0]), 42);
  EXPECT_EQ(callCount(0), 0);
  EXPECT_EQ(r.stats.iterationsStarted, 1);
}

/// k = 3 (a loop invariant, constant Enter); s = 0; for 7 iterations: s += k
TEST_F(ExecutorTest, LoopInvariant) {
  ExecGraph g;
  ExecNodeId k = constI64(g, 3);
  ExecFrameId frame = -1;
  std::vector<ExecPort> res = buildCountedLoop(
      g, 0, "loop", 3, 7, {out(constI64(g, 0))}, [&](ExecGraph &g, const LoopBody &b) {
        frame = b.frame;
        ExecNodeId inv = g.addEnter(out(k), b.frame, /*isConstant=*/true);
        return std::vector<ExecPort>{out(op(g, "add", {b.vars[1], out(inv)}, b.frame))};
      });
  RunResult r = run(g, {res[0]});
  expectClean(r);
  EXPECT_EQ(scalarOf(r.fetched[0]), 21);
}

/// acc = 0; for i in range(5): for j in range(4): acc += i * j   (= 10 * 6 = 60)
TEST_F(ExecutorTest, NestedLoops) {
  for (int threads : {1, 3}) {
    ExecGraph g;
    std::vector<ExecPort> res = buildCountedLoop(
        g, 0, "outer", 2, 5, {out(constI64(g, 0))}, [](ExecGraph &g, const LoopBody &outer) {
          ExecPort i = outer.vars[0];
          return buildCountedLoop(
              g, outer.frame, "inner", 3, 4, {outer.vars[1]},
              [&](ExecGraph &g, const LoopBody &b) {
                ExecNodeId iIn = g.addEnter(i, b.frame, /*isConstant=*/true);
                ExecNodeId prod = op(g, "mul", {out(iIn), b.vars[0]}, b.frame);
                return std::vector<ExecPort>{out(op(g, "add", {b.vars[1], out(prod)}, b.frame))};
              },
              outer.pivot);
        });
    RunResult r = run(g, {res[0]}, threads);
    expectClean(r);
    EXPECT_EQ(scalarOf(r.fetched[0]), 60);
    // One inner frame instance per outer iteration, the exiting one included: there the body
    // is dead, so the inner loop is entered with dead tokens and runs one dead iteration.
    EXPECT_EQ(r.stats.framesCreated, 1 + 6);
    EXPECT_EQ(r.stats.iterationsStarted, 6 + 5 * 5 + 1);
    EXPECT_LE(r.stats.peakLiveFrames, 1 + 2);
  }
}

/// if false: x = while-loop(x) else: x = x + 1 — the loop in the untaken branch runs dead, its
/// Exit sends a dead token when its frame is done, and the Merge takes the live side.
TEST_F(ExecutorTest, LoopInUntakenBranchIsDead) {
  ExecGraph g;
  ExecNodeId x = constI64(g, 5);
  ExecNodeId pred = constBool(g, false);
  ExecNodeId sw = g.addNode("Switch", {out(x), out(pred)}, 2);
  ExecNodeId pivotT = g.addNode("Identity", {out(sw, 1)});
  std::vector<ExecPort> loopRes = buildCountedLoop(
      g, 0, "deadloop", 4, 3, {out(sw, 1)},
      [](ExecGraph &g, const LoopBody &b) {
        return std::vector<ExecPort>{
            out(op(g, "test_count", {b.vars[1]}, b.frame, Attrs{{"slot", int64_t(0)}}))};
      },
      pivotT);
  ExecNodeId pivotF = g.addNode("Identity", {out(sw, 0)});
  ExecNodeId elseVal = op(g, "add", {out(sw, 0), out(constI64(g, 1, 0, pivotF))});
  ExecNodeId merge = g.addNode("Merge", {out(elseVal), loopRes[0]}, 1);
  RunResult r = run(g, {out(merge), loopRes[0]});
  expectClean(r);
  EXPECT_EQ(scalarOf(r.fetched[0]), 6);
  EXPECT_FALSE(r.fetchedLive[1]);
  EXPECT_EQ(callCount(0), 0);
  EXPECT_EQ(r.stats.framesCreated, 1);
}

TEST_F(ExecutorTest, KernelErrorInLoopStopsTheRunWithLocation) {
  for (int threads : {1, 3}) {
    ExecGraph g;
    ExecNodeId failing = -1;
    std::vector<ExecPort> res = buildCountedLoop(
        g, 0, "loop", 4, 1000000, {out(constI64(g, 0))}, [&](ExecGraph &g, const LoopBody &b) {
          failing = op(g, "test_fail_if", {b.vars[0]}, b.frame, Attrs{{"value", int64_t(5)}});
          g.node(failing).loc = ExecLocation{"prog.dlm", 7, 9};
          return std::vector<ExecPort>{out(op(g, "add", {b.vars[1], out(failing)}, b.frame))};
        });
    RunResult r = run(g, {res[0]}, threads);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.errorNode, failing);
    EXPECT_EQ(r.errorString(), "prog.dlm:7:9: error: reached 5");
    EXPECT_LT(r.stats.iterationsStarted, 100) << "the loop stops at the error";
  }
}

/// Two independent branches each call test_barrier, which returns only once both calls are
/// inside it: the run completes only if the branches really run at the same time.
ExecGraph buildBarrierBranches(int64_t timeoutMs, std::vector<ExecPort> &fetches) {
  ExecGraph g;
  Attrs attrs{{"timeout_ms", timeoutMs}};
  ExecNodeId a = op(g, "add", {out(constI64(g, 1)), out(constI64(g, 2))});
  ExecNodeId b = op(g, "mul", {out(constI64(g, 3)), out(constI64(g, 4))});
  ExecNodeId ba = op(g, "test_barrier", {out(a)}, 0, attrs);
  ExecNodeId bb = op(g, "test_barrier", {out(b)}, 0, attrs);
  g.node(ba).expensive = g.node(bb).expensive = true;
  fetches = {out(op(g, "add", {out(ba), out(bb)}))};
  return g;
}

TEST_F(ExecutorTest, IndependentBranchesRunConcurrently) {
  std::vector<ExecPort> fetches;
  ExecGraph g = buildBarrierBranches(20000, fetches);
  RunResult r = run(g, fetches, 2);
  expectClean(r);
  EXPECT_EQ(scalarOf(r.fetched[0]), 15);
}

TEST_F(ExecutorTest, OneThreadCannotPassTheBarrier) {
  // The same graph on one thread: the barrier times out, which shows the hook can fail, and
  // the error stops the run cleanly.
  std::vector<ExecPort> fetches;
  ExecGraph g = buildBarrierBranches(100, fetches);
  RunResult r = run(g, fetches, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status.message(), "barrier partner never arrived");
}

/// `count` independent loops side by side: loop b runs trips(b) iterations with
/// parallel_iterations parallel(b), starting s at init(b) and adding the node step(b) builds from
/// the counter each iteration. Returns each loop's final s.
std::vector<ExecPort>
buildSideBySideLoops(ExecGraph &g, int count, const std::function<int32_t(int)> &parallel,
                     const std::function<int64_t(int)> &trips,
                     const std::function<int64_t(int)> &init,
                     const std::function<ExecNodeId(ExecGraph &, const LoopBody &, int)> &step) {
  std::vector<ExecPort> finals;
  for (int b = 0; b < count; ++b) {
    std::vector<ExecPort> res = buildCountedLoop(
        g, 0, "loop" + std::to_string(b), parallel(b), trips(b), {out(constI64(g, init(b)))},
        [&](ExecGraph &g, const LoopBody &body) {
          ExecNodeId term = step(g, body, b);
          return std::vector<ExecPort>{out(op(g, "add", {body.vars[1], out(term)}, body.frame))};
        });
    finals.push_back(res[0]);
  }
  return finals;
}

TEST_F(ExecutorTest, ErrorWhileOtherThreadsWorkDoesNotHang) {
  // Eight loops of expensive nodes; loop 3 fails early, the others are long.
  ExecGraph g;
  std::vector<ExecPort> fetches = buildSideBySideLoops(
      g, 8, [](int) { return 8; }, [](int b) { return b == 3 ? 10 : 20000; }, [](int) { return 0; },
      [](ExecGraph &g, const LoopBody &body, int b) {
        ExecNodeId f = op(g, "test_fail_if", {body.vars[0]}, body.frame,
                          Attrs{{"value", int64_t(b == 3 ? 2 : -1)}});
        g.node(f).expensive = true;
        return f;
      });
  for (int rep = 0; rep < 20; ++rep) {
    RunResult r = run(g, fetches, 4);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status.message(), "reached 2");
  }
}

TEST_F(ExecutorTest, ResultsDoNotDependOnThreads) {
  // s = b + sum of i * i for i < 50 + b, in six loops with 1..6 parallel iterations.
  ExecGraph g;
  std::vector<ExecPort> fetches = buildSideBySideLoops(
      g, 6, [](int b) { return 1 + b; }, [](int b) { return 50 + b; }, [](int b) { return b; },
      [](ExecGraph &g, const LoopBody &body, int b) {
        ExecNodeId sq = op(g, "mul", {body.vars[0], body.vars[0]}, body.frame);
        g.node(sq).expensive = b % 2 == 0;
        return sq;
      });
  ASSERT_TRUE(g.finalize().ok());
  std::vector<int64_t> expected;
  for (int b = 0; b < 6; ++b) {
    int64_t n = 50 + b, s = b;
    for (int64_t i = 0; i < n; ++i)
      s += i * i;
    expected.push_back(s);
  }
  for (int threads : {1, 2, 4}) {
    for (int rep = 0; rep < 10; ++rep) {
      RunResult r = run(g, fetches, threads);
      expectClean(r);
      for (int b = 0; b < 6; ++b)
        EXPECT_EQ(scalarOf(r.fetched[b]), expected[b]);
    }
  }
}

TEST_F(ExecutorTest, TensorsAreFreedAtLastUse) {
  // x0 = fill(1 MiB); x_{k+1} = x_k + x_0'... a chain of 40 big elementwise ops: keeping every
  // intermediate alive would take 40 MiB; freeing at last use keeps about three alive.
  CountingAllocator counting;
  const int64_t n = 256 * 1024; // f32: 1 MiB
  {
    ExecGraph g;
    ExecNodeId x = op(g, "test_fill", {}, 0, Attrs{{"n", n}, {"value", 1.0}});
    ExecPort cur = out(x);
    for (int k = 0; k < 40; ++k)
      cur = out(op(g, "add", {cur, out(constI64(g, 1))}));
    ExecNodeId total =
        op(g, "sum", {cur}, 0, Attrs{{"axes", std::vector<int64_t>{}}, {"keepdims", false}});
    RunResult r = run(g, {out(total)});
    expectClean(r);
    EXPECT_EQ(r.fetched[0].tensor().item(), 41.0 * n);
  }
  EXPECT_LE(counting.peakBytes(), 3 * 4 * n + 4096);
  EXPECT_EQ(counting.liveBytes(), 0);
}

/// 100 000 iterations of an outer loop around a nested loop (1000 x 100), plus one flat loop of
/// 100 000 iterations; memory stays bounded by parallel_iterations, not by the trip count.
TEST_F(ExecutorTest, StressHundredThousandIterationsWithBoundedMemory) {
  CountingAllocator counting;
  ExecGraph g;
  std::vector<ExecPort> nested = buildCountedLoop(
      g, 0, "outer", 4, 1000, {out(constI64(g, 0))}, [](ExecGraph &g, const LoopBody &outer) {
        return buildCountedLoop(
            g, outer.frame, "inner", 8, 100, {outer.vars[1]},
            [](ExecGraph &g, const LoopBody &b) {
              ExecNodeId one = constI64(g, 1, b.frame, b.pivot);
              return std::vector<ExecPort>{out(op(g, "add", {b.vars[1], out(one)}, b.frame))};
            },
            outer.pivot);
      });
  std::vector<ExecPort> flat = buildCountedLoop(
      g, 0, "flat", 16, 100000, {out(constI64(g, 0))}, [](ExecGraph &g, const LoopBody &b) {
        return std::vector<ExecPort>{out(op(g, "add", {b.vars[1], b.vars[0]}, b.frame))};
      });
  int64_t graphBytes = counting.liveBytes(); // the constants' attribute tensors
  RunResult r = run(g, {nested[0], flat[0]}, 3);
  expectClean(r);
  EXPECT_EQ(scalarOf(r.fetched[0]), 100000);
  EXPECT_EQ(scalarOf(r.fetched[1]), 99999LL * 100000 / 2);
  // Inner frames: one per outer iteration, plus the dead one of the exiting iteration.
  EXPECT_EQ(r.stats.framesCreated, 1 + 1001 + 1);
  EXPECT_EQ(r.stats.iterationsStarted, 1001 + (1000 * 101 + 1) + 100001);
  // At most 4 outer iterations alive, each with one inner frame of at most 8 iterations, plus
  // the flat loop's 16.
  EXPECT_LE(r.stats.peakLiveFrames, 1 + 4 + 1);
  EXPECT_LE(r.stats.peakLiveIterations, 4 + 4 * 8 + 16);
  EXPECT_LE(r.stats.peakLiveValues, 1000);
  r.fetched.clear(); // the two result scalars
  EXPECT_LE(counting.peakBytes() - graphBytes, 1 << 20);
  EXPECT_EQ(counting.liveBytes(), graphBytes);
}

// --- Graphs the executor refuses ----------------------------------------------------------

TEST_F(ExecutorTest, FinalizeRejectsUnknownKernel) {
  ExecGraph g;
  ExecNodeId n = op(g, "no_such_op", {out(constI64(g, 1))});
  g.node(n).loc = ExecLocation{"a.dlm", 2, 3};
  Status s = g.finalize();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "node 1 'no_such_op' at a.dlm:2:3: no kernel for op 'no_such_op'");
}

TEST_F(ExecutorTest, FinalizeRejectsCycleWithoutNextIteration) {
  ExecGraph g;
  ExecNodeId a = op(g, "add", {out(constI64(g, 1)), out(constI64(g, 1))});
  ExecNodeId b = op(g, "add", {out(a), out(a)});
  g.node(a).inputs[1] = out(b);
  Status s = g.finalize();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cycle that does not pass through NextIteration"), std::string::npos)
      << s.message();
}

TEST_F(ExecutorTest, FinalizeRejectsFrameCrossingWithoutEnter) {
  ExecGraph g;
  ExecNodeId outside = constI64(g, 1);
  buildCountedLoop(g, 0, "loop", 1, 3, {out(constI64(g, 0))}, [&](ExecGraph &g, const LoopBody &b) {
    return std::vector<ExecPort>{out(op(g, "add", {b.vars[1], out(outside)}, b.frame))};
  });
  Status s = g.finalize();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("crosses a frame boundary"), std::string::npos) << s.message();
}

TEST_F(ExecutorTest, FinalizeRejectsInputlessNodeInLoop) {
  ExecGraph g;
  buildCountedLoop(g, 0, "loop", 1, 3, {out(constI64(g, 0))}, [&](ExecGraph &g, const LoopBody &b) {
    return std::vector<ExecPort>{
        out(op(g, "add", {b.vars[1], out(constI64(g, 1, b.frame))}, b.frame))};
  });
  Status s = g.finalize();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("has no inputs inside loop frame 'loop'"), std::string::npos)
      << s.message();
}

TEST_F(ExecutorTest, RunningAnUnfinalizedGraphIsAnError) {
  ExecGraph g;
  constI64(g, 1);
  RunResult r = runGraph(g);
  EXPECT_FALSE(r.ok());
}

} // namespace
} // namespace dlm::rt
