//===- runtime/exec/ThreadPool.cpp - Worker threads ------------------------===//
#include "runtime/exec/ThreadPool.h"

#include "runtime/Threads.h"

namespace dlm::rt {

ThreadPool::ThreadPool(int numThreads) {
  if (numThreads < 1)
    numThreads = 1;
  workers.reserve(numThreads);
  for (int i = 0; i < numThreads; ++i)
    workers.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu);
    stopping = true;
  }
  cv.notify_all();
  for (std::thread &t : workers)
    t.join();
}

void ThreadPool::schedule(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu);
    tasks.push_back(std::move(task));
  }
  cv.notify_one();
}

void ThreadPool::workerLoop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return stopping || !tasks.empty(); });
      if (tasks.empty())
        return; // stopping, and nothing left to do
      task = std::move(tasks.front());
      tasks.pop_front();
    }
    task();
  }
}

int ThreadPool::defaultThreadCount() { return computeCores(); }

ThreadPool &ThreadPool::shared() {
  // Leaked on purpose: joining workers from a static destructor at exit would race with other
  // static destructors the tasks may use.
  static ThreadPool *pool = new ThreadPool(defaultThreadCount() - 1);
  return *pool;
}

} // namespace dlm::rt
