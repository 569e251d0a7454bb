//===- runtime/exec/ThreadPool.h - Worker threads for the graph executor ---===//
//
// A fixed set of worker threads draining one FIFO of tasks. The executor hands expensive nodes to
// it; a run's calling thread always works too, so a run makes progress even when every worker is
// busy (for example inside a nested run), and the pool never needs to grow.
//
// Sizing (docs/executor.md, docs/runtime.md "Threads"): the shared pool has one worker fewer
// than the runtime's core count (at least one), because the thread that calls runGraph is the
// last worker; a run declares its thread count to the runtime (ScopedInterOpThreads) so that
// OpenBLAS's own threads and the executor's never oversubscribe the cores.
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

  /// The process-wide pool: defaultThreadCount() - 1 workers (at least one).
  static ThreadPool &shared();
  /// Threads a run uses by default, its calling thread included: the runtime's core count
  /// (rt::computeCores(): $DLM_NUM_THREADS, else the hardware concurrency).
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
