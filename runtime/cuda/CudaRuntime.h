//===- runtime/cuda/CudaRuntime.h - CUDA devices, memory, copies, streams -===//
//
// The GPU side of the runtime, through the CUDA runtime API. Built only when the build found
// nvcc (DLM_HAVE_CUDA); the header itself does not include CUDA headers, so any target linking
// dlm_cuda_runtime can use it.
//
// Discovery never fails: no driver, no device or any other cudaGetDeviceCount error means "no
// GPU" with a reason; only a caller that insists on a GPU (`--device=cuda`) turns that into an
// error (requireDevice).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_CUDA_CUDARUNTIME_H
#define DLM_RUNTIME_CUDA_CUDARUNTIME_H

#include "runtime/Tensor.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace dlm::rt::cuda {

/// What cudaGetDeviceCount said, once per process.
struct Discovery {
  int deviceCount = 0;
  /// Why there is no GPU ("CUDA driver version is insufficient ...", "no CUDA-capable device is
  /// detected", "cudaGetDeviceCount returned 0 devices"); empty when deviceCount > 0.
  std::string reason;
  /// "NVIDIA H100 80GB HBM3 (sm_90, 79 GiB)" for device 0 when there is one.
  std::string description;
};
const Discovery &discover();
inline bool available() { return discover().deviceCount > 0; }
/// Throws rt::Error("no CUDA device available (<reason>)") when there is no GPU.
void requireDevice();

/// Throws rt::Error("CUDA error in <what>: <cudaGetErrorString>") unless `code` is 0.
void checkCuda(int code, const char *what);

/// A caching device allocator: freed blocks go to a per-size free list and are handed out again
/// for requests of the same rounded size (512-byte granularity below 1 MiB, 1 MiB above); when
/// cudaMalloc fails the cache is emptied and the allocation retried once. `emptyCache` (called on
/// destruction) returns every cached block to the driver.
class CachingAllocator final : public Allocator {
public:
  struct Stats {
    uint64_t mallocs = 0;   ///< cudaMalloc calls
    uint64_t reuses = 0;    ///< requests served from the cache
    size_t liveBytes = 0;   ///< rounded bytes handed out and not yet returned
    size_t cachedBytes = 0; ///< rounded bytes held in free lists
  };
  ~CachingAllocator() override;
  void *allocate(size_t bytes) override;
  void deallocate(void *ptr, size_t bytes) override;
  Device device() const override { return Device::CUDA; }
  void emptyCache();
  Stats stats() const;
  /// Tests: fill every block handed out with 0xFF bytes (f32 NaN), so elements a kernel fails
  /// to write show up in comparisons.
  void setPoison(bool on) { poison.store(on); }
  /// The rounded size a request of `bytes` occupies (also for 0 bytes: distinct pointers).
  static size_t roundSize(size_t bytes);

private:
  void *take(size_t bytes);
  mutable std::mutex mu;
  std::unordered_map<size_t, std::vector<void *>> freeLists;
  Stats counters;
  std::atomic<bool> poison{false};
};

/// The process's caching allocator (created on first use; needs a GPU to allocate).
CachingAllocator &cachingAllocator();

/// Installs the caching allocator for Device::CUDA (setAllocator) if a GPU is present; returns
/// available(). Idempotent.
bool installAllocator();

/// Pinned (page-locked) host staging buffers for asynchronous copies, cached like device
/// blocks (same size classes). A buffer a copy still reads or writes is handed back with
/// `releaseAfter(event)` and reused only once that event has completed; `take` reclaims such
/// buffers first. `emptyCache` (also on destruction) frees idle buffers.
class PinnedPool {
public:
  struct Stats {
    uint64_t allocs = 0;     ///< cudaHostAlloc calls
    uint64_t reuses = 0;     ///< requests served from the cache
    size_t pendingBytes = 0; ///< buffers waiting for their copy to finish
  };
  ~PinnedPool();
  void *take(size_t bytes);
  /// Returns `ptr` (from take(bytes)) once the CUDA event `event` has completed; the pool then
  /// destroys the event.
  void releaseAfter(void *ptr, size_t bytes, void *event);
  void emptyCache();
  Stats stats() const;

private:
  struct Pending {
    void *ptr;
    size_t size;
    void *event;
  };
  void reclaimLocked();
  mutable std::mutex mu;
  std::unordered_map<size_t, std::vector<void *>> freeLists;
  std::vector<Pending> pending;
  Stats counters;
};

/// The process's pinned staging pool.
PinnedPool &pinnedPool();

/// The stream every host<->device transfer of Send runs on (non-blocking, created on first use).
/// Kernels run on the legacy default stream; the two are ordered with events only.
void *copyStream();

/// A contiguous device copy of a CPU tensor (any layout; non-contiguous sources are packed on
/// the host first).
Tensor toDevice(const Tensor &host);
/// A contiguous CPU copy of a CUDA tensor (a strided device view is packed on the device by
/// the caller first; this copies the bytes of a contiguous view).
Tensor toHost(const Tensor &device);
/// Waits for all work on the current device.
void synchronize();

/// A CUDA stream (RAII). The default-constructed one is the legacy default stream.
class Stream {
public:
  Stream() = default;
  /// A new non-blocking stream.
  static Stream create();
  Stream(Stream &&o) noexcept : handle(o.handle) { o.handle = nullptr; }
  Stream &operator=(Stream &&o) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  ~Stream();
  void *raw() const { return handle; }
  void synchronize() const;
  /// Asynchronous copy of `bytes` between any two pointers (cudaMemcpyDefault).
  void copyAsync(void *dst, const void *src, size_t bytes) const;

private:
  void *handle = nullptr;
};

/// A CUDA event (RAII), for ordering streams (Send/Recv) and timing.
class Event {
public:
  Event();
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();
  void record(const Stream &s) const;
  /// Makes `s` wait until this event has completed (without blocking the host).
  void waitOn(const Stream &s) const;
  void synchronize() const;
  /// Milliseconds between `start` and this event (both recorded and completed).
  float elapsedMsSince(const Event &start) const;

private:
  void *handle = nullptr;
};

} // namespace dlm::rt::cuda

#endif // DLM_RUNTIME_CUDA_CUDARUNTIME_H
