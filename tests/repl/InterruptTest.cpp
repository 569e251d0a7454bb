//===- tests/repl/InterruptTest.cpp - Ctrl-C: flag, handler, executor -----===//
//
// What the REPL's Ctrl-C rests on (runtime/Interrupt.h): SIGINT sets the flag while an
// InterruptHandler lives, a second one ends the process with 130, and the graph executor stops
// a loop that would otherwise run for hours with the error "interrupted".
//
//===----------------------------------------------------------------------===//
#include "runtime/Interrupt.h"
#include "runtime/CApi.h"
#include "tests/executor/ExecBuilders.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <thread>

using namespace dlm::rt;
using namespace dlm::rt::test;

namespace {

class InterruptTest : public ::testing::Test {
protected:
  void SetUp() override { dlm_interrupt_clear(); }
  void TearDown() override { dlm_interrupt_clear(); }
};

TEST_F(InterruptTest, FlagRequestAndClear) {
  EXPECT_EQ(dlm_interrupt_requested(), 0);
  dlm_interrupt_request();
  EXPECT_NE(dlm_interrupt_requested(), 0);
  EXPECT_NE(dlm_interrupt_flag, 0) << "generated code reads the variable itself";
  dlm_interrupt_clear();
  EXPECT_EQ(dlm_interrupt_requested(), 0);
}

TEST_F(InterruptTest, InterruptedSetsTheErrorStatus) {
  dlm_clear_error();
  EXPECT_EQ(dlm_interrupted(), 1);
  EXPECT_STREQ(dlm_last_error(), "interrupted");
}

/// Sets SIGINT's disposition to `handler` for the scope (test runners may start us ignoring it).
class SigintDisposition {
public:
  explicit SigintDisposition(void (*handler)(int)) {
    struct sigaction action = {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &saved);
  }
  ~SigintDisposition() { sigaction(SIGINT, &saved, nullptr); }

private:
  struct sigaction saved = {};
};

TEST_F(InterruptTest, HandlerTurnsSigintIntoTheFlagAndRestoresTheDisposition) {
  SigintDisposition byDefault(SIG_DFL);
  struct sigaction before = {};
  sigaction(SIGINT, nullptr, &before);
  {
    InterruptHandler handler;
    std::raise(SIGINT); // would end the test binary without the handler
    EXPECT_NE(dlm_interrupt_requested(), 0);
  }
  struct sigaction after = {};
  sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

TEST_F(InterruptTest, AnIgnoredSigintStaysIgnored) {
  SigintDisposition ignored(SIG_IGN);
  InterruptHandler handler;
  std::raise(SIGINT);
  EXPECT_EQ(dlm_interrupt_requested(), 0);
}

TEST_F(InterruptTest, SecondSigintBeforeTheFirstIsSeenExits130) {
  SigintDisposition byDefault(SIG_DFL);
  EXPECT_EXIT(
      {
        InterruptHandler handler;
        std::raise(SIGINT);
        std::raise(SIGINT);
      },
      ::testing::ExitedWithCode(130), "interrupted twice");
}

/// for i in range(n): s += i — with n = 10^7 several seconds of work (so that a missing check
/// fails the test rather than hang it), stopped within one iteration of the request.
std::vector<ExecPort> longLoop(ExecGraph &g, int64_t n) {
  return buildCountedLoop(
      g, 0, "loop", 2, n, {out(constI64(g, 0))}, [](ExecGraph &g, const LoopBody &b) {
        return std::vector<ExecPort>{out(op(g, "add", {b.vars[1], b.vars[0]}, b.frame))};
      });
}

RunResult runLong(int threads, int64_t n = 10000000) {
  ExecGraph g;
  std::vector<ExecPort> res = longLoop(g, n);
  Status s = g.finalize();
  EXPECT_TRUE(s.ok()) << s.message();
  RunOptions opts;
  opts.numThreads = threads;
  opts.fetches = res;
  return runGraph(g, opts);
}

TEST_F(InterruptTest, ExecutorStopsARunningLoop) {
  for (int threads : {1, 3}) {
    std::thread ctrlC([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      dlm_interrupt_request();
    });
    RunResult r = runLong(threads);
    ctrlC.join();
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status.message(), "interrupted");
    EXPECT_GT(r.stats.iterationsStarted, 1) << "the loop was running";
    dlm_interrupt_clear();
  }
}

TEST_F(InterruptTest, ExecutorRunsToTheEndWithoutARequest) {
  RunResult r = runLong(1, 1000);
  EXPECT_TRUE(r.ok()) << r.errorString();
}

TEST_F(InterruptTest, ExecutorStopsAtOnceWhenRequestedBefore) {
  dlm_interrupt_request();
  RunResult r = runLong(1);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status.message(), "interrupted");
  EXPECT_EQ(r.stats.framesCreated, 0) << "the loop was never entered";
}

} // namespace
