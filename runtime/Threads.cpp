//===- runtime/Threads.cpp - OpenBLAS thread count from the inter-op policy ---===//
//
// What OpenBLAS 0.3.21 (Debian's pthreads build) does with threads, which this file works
// around:
//  - Its constructor (gotoblas_init) reads the environment once (OPENBLAS_NUM_THREADS, else
//    GOTO_NUM_THREADS, else OMP_NUM_THREADS, else the number of cores) and starts that many
//    threads minus one at once, before main.
//  - An idle worker spins (sched_yield) for 2^OPENBLAS_THREAD_TIMEOUT time-stamp ticks (default
//    2^28, ~0.1 s here; the variable is read at initialisation, clamped to 4..30) before it
//    sleeps on a condition variable; it spins again after every job it runs.
//  - openblas_set_num_threads(n) with n above the threads it has starts the missing ones at
//    once; a lower n only makes later calls use fewer; no thread ever stops before exit.
// So an unset OPENBLAS_NUM_THREADS cost every process a busy core for its first 0.1 s. Here
// OpenBLAS initialises single-threaded and is raised to the policy's count at the first product
// it would thread (beforeBlasProduct).
//
//===----------------------------------------------------------------------===//
#include "runtime/Threads.h"

#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include <unistd.h>

// OpenBLAS's initialiser: exported by its static and shared libraries though not declared in
// cblas.h; it returns at once when it has run. Weak, so that a BLAS without it still links.
extern "C" void gotoblas_init(void) __attribute__((weak));

namespace {

/// Initialises OpenBLAS as the environment says but with OPENBLAS_NUM_THREADS=1. It runs from
/// .preinit_array: before every constructor of a static executable (OpenBLAS's among them) and
/// before the constructors of the shared libraries a dynamic one loads, so OpenBLAS starts no
/// threads whichever way it is linked. There, in a dynamic executable, libc has not set
/// `environ` yet (its own initialiser does, after this): OpenBLAS reads a copy of the
/// environment passed in (`envp`, OPENBLAS_CORETYPE and the like included) with the variable
/// replaced, through `environ` for the length of the call; the process's environment is never
/// changed.
void initBlasSingleThreaded(int, char **, char **envp) {
  if (!gotoblas_init)
    return;
  char **env = environ ? environ : envp;
  static const char kName[] = "OPENBLAS_NUM_THREADS=";
  size_t count = 0;
  while (env && env[count])
    ++count;
  char **held = static_cast<char **>(std::malloc((count + 2) * sizeof(char *)));
  if (!held)
    return;
  size_t n = 0;
  for (size_t i = 0; i < count; ++i)
    if (std::strncmp(env[i], kName, sizeof kName - 1) != 0)
      held[n++] = env[i];
  static char one[] = "OPENBLAS_NUM_THREADS=1";
  held[n++] = one;
  held[n] = nullptr;
  char **saved = environ;
  environ = held;
  gotoblas_init();
  environ = saved;
  std::free(held);
}

__attribute__((section(".preinit_array"),
               used)) void (*initBlasEntry)(int, char **, char **) = initBlasSingleThreaded;

std::mutex mu;
int interOp = 0;  // 0: not configured yet
int wanted = 1;   // the policy's OpenBLAS threads: max(1, cores / interOp)
int blasSet = 0;  // what OpenBLAS is set to (0: not read yet)
int blasMost = 0; // the most threads OpenBLAS has had (those it started never stop)

/// Applies inter-op count `n`: lowers OpenBLAS at once, raises it only as far as threads it
/// already has; the rest waits for a product it threads (raiseBlasThreads).
void applyLocked(int n) {
  interOp = std::max(1, n);
  wanted = std::max(1, dlm::rt::computeCores() / interOp);
  if (blasSet == 0)
    blasSet = blasMost = openblas_get_num_threads();
  int now = std::min(wanted, blasMost);
  if (now != blasSet) {
    openblas_set_num_threads(now);
    blasSet = now;
  }
  dlm::rt::detail::blasRaisePending.store(wanted > blasSet, std::memory_order_release);
}

} // namespace

namespace dlm::rt {

// True before the policy is configured too: the first threaded product configures it.
std::atomic<bool> detail::blasRaisePending{true};

void detail::raiseBlasThreads() {
  std::lock_guard<std::mutex> lock(mu);
  if (interOp == 0)
    applyLocked(1);
  if (wanted <= blasSet)
    return;
  openblas_set_num_threads(wanted);
  blasSet = wanted;
  blasMost = std::max(blasMost, wanted);
  blasRaisePending.store(false, std::memory_order_release);
}

int computeCores() {
  static int cores = [] {
    if (const char *env = std::getenv("DLM_NUM_THREADS")) {
      int n = std::atoi(env);
      if (n > 0)
        return n;
    }
    return (int)std::max(1u, std::thread::hardware_concurrency());
  }();
  return cores;
}

void setInterOpThreads(int n) {
  std::lock_guard<std::mutex> lock(mu);
  applyLocked(n);
}

int blasThreads() {
  std::lock_guard<std::mutex> lock(mu);
  if (interOp == 0)
    applyLocked(1);
  return wanted;
}

int openBlasThreads() { return openblas_get_num_threads(); }

int processThreads() {
  FILE *status = std::fopen("/proc/self/status", "r");
  if (!status)
    return 0;
  char line[256];
  int threads = 0;
  while (std::fgets(line, sizeof line, status))
    if (std::sscanf(line, "Threads: %d", &threads) == 1)
      break;
  std::fclose(status);
  return threads;
}

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
