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
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_THREADS_H
#define DLM_RUNTIME_THREADS_H

namespace dlm::rt {

/// The cores the runtime plans for.
int computeCores();

/// Declares that up to `n` kernels may run at once; sets OpenBLAS to max(1, cores / n)
/// threads. Nested scopes take the largest active n. Thread-safe; call it between kernel
/// launches (at the start of a run), not while GEMMs are in flight.
void setInterOpThreads(int n);

/// Threads OpenBLAS currently uses.
int blasThreads();

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
