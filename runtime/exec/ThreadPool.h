//===- runtime/exec/ThreadPool.h - Worker threads for the graph executor ---===//
//
// A fixed set of worker threads draining one FIFO of tasks. The executor hands expensive nodes to
// it; a run's calling thread always works too, so a run makes progress even when every worker is
// busy (for example inside a nested run), and the pool never needs to grow.
//
// Sizing (docs/executor.md, docs/runtime.md): the shared pool has one worker fewer than the
// machine has cores (at least one), because the thread that calls Executor::run is the last
// worker. Kernels that multithread internally (OpenBLAS GEMM) must follow the runtime's BLAS
// thread policy so the two levels of parallelism do not oversubscribe the cores.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_EXEC_THREADPOOL_H
#define DLM_RUNTIME_EXEC_THREADPOOL_H

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace dlm::rt {

class ThreadPool {
public:
  /// Starts `numThreads` workers (at least one).
  explicit ThreadPool(int numThreads);
  /// Finishes the queued tasks, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// Queues `task` to run on some worker.
  void schedule(std::function<void()> task);
  int size() const { return (int)workers.size(); }

  /// The process-wide pool: cores - 1 workers (at least one); `DLM_NUM_THREADS` overrides the
  /// total thread count (workers + the calling thread).
  static ThreadPool &shared();
  /// Total threads a run on the shared pool uses: its workers plus the calling thread.
  static int defaultThreadCount();

private:
  void workerLoop();

  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> tasks;
  bool stopping = false;
  std::vector<std::thread> workers;
};

} // namespace dlm::rt

#endif // DLM_RUNTIME_EXEC_THREADPOOL_H
