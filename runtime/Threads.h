//===- runtime/Threads.h - How kernels and the executor share the cores ---===//
//
// The policy (docs/runtime.md, "Threads"): intra-op threads x inter-op threads <= cores.
// Only OpenBLAS runs multi-threaded inside a kernel (GEMM in matmul and conv2d); every other
// kernel is single-threaded. By default nothing runs kernels concurrently, so OpenBLAS gets
// every core. An engine that runs up to N kernels at once (the graph executor's pool) declares
// it with ScopedInterOpThreads(N) for the duration of the run; OpenBLAS then gets
// max(1, cores / N) threads, so two executor workers on two cores each run single-threaded
// GEMMs instead of four threads fighting for two cores.
//
// `cores` is $DLM_NUM_THREADS when set (a positive integer), else the hardware concurrency.
//
// OpenBLAS's worker threads start late: OpenBLAS initialises single-threaded (an ELF
// .preinit_array entry runs before its constructor, in static and shared links alike), and it
// is raised to the policy's count only when the first product it would run on several threads
// comes (beforeBlasProduct). Idle workers spin on a core for ~0.1 s before they sleep, so a
// program without such a product never has them.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_THREADS_H
#define DLM_RUNTIME_THREADS_H

#include <atomic>
#include <cstdint>

namespace dlm::rt {

/// The cores the runtime plans for.
int computeCores();

/// Declares that up to `n` kernels may run at once: a product OpenBLAS threads gets
/// max(1, cores / n) threads. Nested scopes take the largest active n. Thread-safe; call it
/// between kernel launches (at the start of a run), not while GEMMs are in flight.
void setInterOpThreads(int n);

/// Threads OpenBLAS runs a product it threads on under the current policy.
int blasThreads();

/// Threads OpenBLAS is set to now: 1 until the first product it would thread, then the
/// policy's count.
int openBlasThreads();

/// Threads in this process now (Linux: /proc/self/status); 0 where that is unknown.
int processThreads();

/// OpenBLAS 0.3.21 (interface/gemm.c) runs a GEMM on one thread when m * n * k <= 65536 *
/// GEMM_MULTITHREAD_THRESHOLD (4 in Debian's build: the constant in its cblas_sgemm/dgemm).
inline constexpr double kBlasThreadedProduct = 65536.0 * 4;

namespace detail {
/// True while the policy wants more OpenBLAS threads than OpenBLAS has.
extern std::atomic<bool> blasRaisePending;
void raiseBlasThreads();
} // namespace detail

/// Call before every cblas_?gemm: the first product OpenBLAS would thread while the policy
/// wants more threads than it has raises OpenBLAS to blasThreads() (starting its workers).
inline void beforeBlasProduct(int64_t m, int64_t n, int64_t k) {
  if ((double)m * (double)n * (double)k > kBlasThreadedProduct &&
      detail::blasRaisePending.load(std::memory_order_acquire))
    detail::raiseBlasThreads();
}

/// Sets inter-op parallelism to `n` for its lifetime, restoring the previous value after.
class ScopedInterOpThreads {
public:
  explicit ScopedInterOpThreads(int n);
  ~ScopedInterOpThreads();
  ScopedInterOpThreads(const ScopedInterOpThreads &) = delete;
  ScopedInterOpThreads &operator=(const ScopedInterOpThreads &) = delete;

private:
  int previous;
};

} // namespace dlm::rt

#endif // DLM_RUNTIME_THREADS_H
