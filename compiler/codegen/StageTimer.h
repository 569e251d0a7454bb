//===- compiler/codegen/StageTimer.h - --time-passes for codegen's stages -===//
//
// Internal to compiler/codegen. The wall and CPU time of each codegen stage (codegen, optimise,
// jit, link, run, ...), printed under --time-passes. CPU time is what other jobs on a shared
// machine do not inflate, unlike wall time.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_CODEGEN_STAGETIMER_H
#define DLM_COMPILER_CODEGEN_STAGETIMER_H

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <ctime>

namespace dlm::codegen {

/// Milliseconds of CPU time this process has used, all threads.
inline double processCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/// Milliseconds of CPU time the calling thread has used.
inline double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/// Timing of the codegen stages for --time-passes: "time: STAGE WALL ms (cpu CPU ms)".
class StageTimer {
public:
  explicit StageTimer(bool on)
      : on(on), last(std::chrono::steady_clock::now()), lastCpu(processCpuMs()) {}

  /// Ends the stage `stage` (printed when on) and starts the next.
  void lap(const char *stage) {
    auto now = std::chrono::steady_clock::now();
    double cpu = processCpuMs();
    if (on)
      llvm::errs() << llvm::format("time: %-10s %9.3f ms (cpu %.3f ms)\n", stage,
                                   std::chrono::duration<double, std::milli>(now - last).count(),
                                   cpu - lastCpu);
    last = now;
    lastCpu = cpu;
  }

private:
  bool on;
  std::chrono::steady_clock::time_point last;
  double lastCpu;
};

} // namespace dlm::codegen

#endif // DLM_COMPILER_CODEGEN_STAGETIMER_H
