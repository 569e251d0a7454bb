//===- runtime/Threads.cpp - OpenBLAS thread count from the inter-op policy ---===//
#include "runtime/Threads.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace dlm::rt {
namespace {
std::mutex mu;
int interOp = 0; // 0: not configured yet

void applyLocked(int n) {
  interOp = std::max(1, n);
  openblas_set_num_threads(std::max(1, computeCores() / interOp));
}
} // namespace

int computeCores() {
  static int cores = [] {
    if (const char *env = std::getenv("DLM_NUM_THREADS")) {
      int n = std::atoi(env);
      if (n > 0) return n;
    }
    return (int)std::max(1u, std::thread::hardware_concurrency());
  }();
  return cores;
}

void setInterOpThreads(int n) {
  std::lock_guard<std::mutex> lock(mu);
  applyLocked(n);
}

int blasThreads() { return openblas_get_num_threads(); }

ScopedInterOpThreads::ScopedInterOpThreads(int n) {
  std::lock_guard<std::mutex> lock(mu);
  previous = interOp == 0 ? 1 : interOp;
  applyLocked(std::max(n, previous));
}

ScopedInterOpThreads::~ScopedInterOpThreads() {
  std::lock_guard<std::mutex> lock(mu);
  applyLocked(previous);
}

} // namespace dlm::rt
