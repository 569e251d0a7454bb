//===- runtime/cuda/CudaRuntime.cpp - CUDA devices, memory, copies, streams ===//
#include "runtime/cuda/CudaRuntime.h"

#include "runtime/Error.h"

#include <cuda_runtime.h>

namespace dlm::rt::cuda {

void checkCuda(int code, const char *what) {
  if (code != 0)
    throw Error(std::string("CUDA error in ") + what + ": " +
                cudaGetErrorString(static_cast<cudaError_t>(code)));
}

const Discovery &discover() {
  static const Discovery d = [] {
    Discovery r;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      r.reason = cudaGetErrorString(e);
      (void)cudaGetLastError(); // clear the error so later CUDA calls start clean
      return r;
    }
    if (n <= 0) {
      r.reason = "cudaGetDeviceCount returned 0 devices";
      return r;
    }
    r.deviceCount = n;
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) == cudaSuccess)
      r.description = std::string(p.name) + " (sm_" + std::to_string(p.major) +
                      std::to_string(p.minor) + ", " + std::to_string(p.totalGlobalMem >> 30) +
                      " GiB)";
    return r;
  }();
  return d;
}

void requireDevice() {
  const Discovery &d = discover();
  if (d.deviceCount <= 0)
    throw Error("no CUDA device available (" + d.reason + ")");
}

// --- caching allocator -------------------------------------------------------------------

size_t CachingAllocator::roundSize(size_t bytes) {
  constexpr size_t kSmall = 512, kLarge = size_t(1) << 20;
  if (bytes < kLarge)
    return bytes == 0 ? kSmall : (bytes + kSmall - 1) / kSmall * kSmall;
  return (bytes + kLarge - 1) / kLarge * kLarge;
}

CachingAllocator::~CachingAllocator() { emptyCache(); }

void *CachingAllocator::allocate(size_t bytes) {
  void *p = take(bytes);
  if (poison.load())
    checkCuda(cudaMemset(p, 0xFF, roundSize(bytes)), "cudaMemset (poison)");
  return p;
}

void *CachingAllocator::take(size_t bytes) {
  size_t size = roundSize(bytes);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = freeLists.find(size);
    if (it != freeLists.end() && !it->second.empty()) {
      void *p = it->second.back();
      it->second.pop_back();
      ++counters.reuses;
      counters.cachedBytes -= size;
      counters.liveBytes += size;
      return p;
    }
  }
  void *p = nullptr;
  cudaError_t e = cudaMalloc(&p, size);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    emptyCache();
    e = cudaMalloc(&p, size);
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    throw Error("out of memory on the GPU: cannot allocate " + std::to_string(bytes) + " bytes (" +
                cudaGetErrorString(e) + ")");
  }
  std::lock_guard<std::mutex> lock(mu);
  ++counters.mallocs;
  counters.liveBytes += size;
  return p;
}

void CachingAllocator::deallocate(void *ptr, size_t bytes) {
  if (!ptr)
    return;
  size_t size = roundSize(bytes);
  std::lock_guard<std::mutex> lock(mu);
  freeLists[size].push_back(ptr);
  counters.liveBytes -= size;
  counters.cachedBytes += size;
}

void CachingAllocator::emptyCache() {
  std::lock_guard<std::mutex> lock(mu);
  for (auto &[size, blocks] : freeLists) {
    // At process exit the CUDA runtime may already be unloading; its error is harmless then.
    for (void *p : blocks)
      (void)cudaFree(p);
    counters.cachedBytes -= size * blocks.size();
    blocks.clear();
  }
  freeLists.clear();
}

CachingAllocator::Stats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu);
  return counters;
}

CachingAllocator &cachingAllocator() {
  static CachingAllocator a;
  return a;
}

bool installAllocator() {
  if (!available())
    return false;
  static std::once_flag once;
  std::call_once(once, [] { setAllocator(&cachingAllocator()); });
  return true;
}

// --- pinned staging buffers --------------------------------------------------------------

PinnedPool::~PinnedPool() { emptyCache(); }

void PinnedPool::reclaimLocked() {
  for (size_t i = 0; i < pending.size();) {
    Pending &p = pending[i];
    if (cudaEventQuery(static_cast<cudaEvent_t>(p.event)) == cudaErrorNotReady) {
      ++i;
      continue;
    }
    (void)cudaGetLastError();
    (void)cudaEventDestroy(static_cast<cudaEvent_t>(p.event));
    freeLists[p.size].push_back(p.ptr);
    counters.pendingBytes -= p.size;
    pending[i] = pending.back();
    pending.pop_back();
  }
}

void *PinnedPool::take(size_t bytes) {
  size_t size = CachingAllocator::roundSize(bytes);
  {
    std::lock_guard<std::mutex> lock(mu);
    reclaimLocked();
    auto it = freeLists.find(size);
    if (it != freeLists.end() && !it->second.empty()) {
      void *p = it->second.back();
      it->second.pop_back();
      ++counters.reuses;
      return p;
    }
    ++counters.allocs;
  }
  void *p = nullptr;
  checkCuda(cudaHostAlloc(&p, size, cudaHostAllocDefault), "cudaHostAlloc (staging buffer)");
  return p;
}

void PinnedPool::releaseAfter(void *ptr, size_t bytes, void *event) {
  std::lock_guard<std::mutex> lock(mu);
  size_t size = CachingAllocator::roundSize(bytes);
  pending.push_back({ptr, size, event});
  counters.pendingBytes += size;
}

void PinnedPool::emptyCache() {
  std::lock_guard<std::mutex> lock(mu);
  // At exit every copy has been waited for by its Recv; a pending buffer whose Recv never ran
  // is waited for here before it is freed.
  for (Pending &p : pending) {
    (void)cudaEventSynchronize(static_cast<cudaEvent_t>(p.event));
    (void)cudaEventDestroy(static_cast<cudaEvent_t>(p.event));
    freeLists[p.size].push_back(p.ptr);
  }
  pending.clear();
  counters.pendingBytes = 0;
  for (auto &[size, blocks] : freeLists)
    for (void *p : blocks)
      (void)cudaFreeHost(p);
  freeLists.clear();
}

PinnedPool::Stats PinnedPool::stats() const {
  std::lock_guard<std::mutex> lock(mu);
  return counters;
}

PinnedPool &pinnedPool() {
  static PinnedPool pool;
  return pool;
}

void *copyStream() {
  static cudaStream_t stream = [] {
    cudaStream_t s = nullptr;
    checkCuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate (copies)");
    return s;
  }();
  return stream;
}

// --- copies ------------------------------------------------------------------------------

Tensor toDevice(const Tensor &host) {
  rt::check(host.device() == Device::CPU, "toDevice: the source must be a CPU tensor");
  requireDevice();
  installAllocator();
  Tensor src = host.contiguous();
  Tensor dst = Tensor::empty(src.dtype(), src.shape(), Device::CUDA);
  size_t bytes = (size_t)src.numel() * src.elementSize();
  if (bytes)
    checkCuda(cudaMemcpy(dst.rawData(), src.rawData(), bytes, cudaMemcpyHostToDevice), "toDevice");
  return dst;
}

Tensor toHost(const Tensor &device) {
  rt::check(device.device() == Device::CUDA, "toHost: the source must be a CUDA tensor");
  rt::check(device.isContiguous(), "toHost: the source must be contiguous, got a strided " +
                                       device.typeString() + " view");
  Tensor dst = Tensor::empty(device.dtype(), device.shape(), Device::CPU);
  size_t bytes = (size_t)device.numel() * device.elementSize();
  if (bytes)
    checkCuda(cudaMemcpy(dst.rawData(), device.rawData(), bytes, cudaMemcpyDeviceToHost), "toHost");
  return dst;
}

void synchronize() { checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

// --- streams and events ------------------------------------------------------------------

Stream Stream::create() {
  Stream s;
  cudaStream_t h = nullptr;
  checkCuda(cudaStreamCreateWithFlags(&h, cudaStreamNonBlocking), "cudaStreamCreate");
  s.handle = h;
  return s;
}

Stream &Stream::operator=(Stream &&o) noexcept {
  if (this != &o) {
    if (handle)
      (void)cudaStreamDestroy(static_cast<cudaStream_t>(handle));
    handle = o.handle;
    o.handle = nullptr;
  }
  return *this;
}

Stream::~Stream() {
  if (handle)
    (void)cudaStreamDestroy(static_cast<cudaStream_t>(handle));
}

void Stream::synchronize() const {
  checkCuda(cudaStreamSynchronize(static_cast<cudaStream_t>(handle)), "cudaStreamSynchronize");
}

void Stream::copyAsync(void *dst, const void *src, size_t bytes) const {
  checkCuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(handle)),
            "cudaMemcpyAsync");
}

Event::Event() {
  cudaEvent_t e = nullptr;
  checkCuda(cudaEventCreate(&e), "cudaEventCreate");
  handle = e;
}

Event::~Event() {
  if (handle)
    (void)cudaEventDestroy(static_cast<cudaEvent_t>(handle));
}

void Event::record(const Stream &s) const {
  checkCuda(cudaEventRecord(static_cast<cudaEvent_t>(handle), static_cast<cudaStream_t>(s.raw())),
            "cudaEventRecord");
}

void Event::waitOn(const Stream &s) const {
  checkCuda(
      cudaStreamWaitEvent(static_cast<cudaStream_t>(s.raw()), static_cast<cudaEvent_t>(handle), 0),
      "cudaStreamWaitEvent");
}

void Event::synchronize() const {
  checkCuda(cudaEventSynchronize(static_cast<cudaEvent_t>(handle)), "cudaEventSynchronize");
}

float Event::elapsedMsSince(const Event &start) const {
  float ms = 0;
  checkCuda(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start.handle),
                                 static_cast<cudaEvent_t>(handle)),
            "cudaEventElapsedTime");
  return ms;
}

} // namespace dlm::rt::cuda
