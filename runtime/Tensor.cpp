//===- runtime/Tensor.cpp - Tensors, buffers and the CPU allocator -------===//
#include "runtime/Tensor.h"
#include "runtime/MemoryStats.h"
#include "runtime/Strided.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>

namespace dlm::rt {

const char *deviceName(Device d) { return d == Device::CPU ? "cpu" : "cuda"; }

namespace {

/// 64-byte aligned malloc. Sizes round up to a multiple of 64 (aligned_alloc requires it).
class CpuAllocator final : public Allocator {
public:
  void *allocate(size_t bytes) override {
    size_t rounded = (bytes + 63) / 64 * 64;
    if (rounded == 0)
      rounded = 64;
    void *p = std::aligned_alloc(64, rounded);
    if (!p)
      throw Error("out of memory allocating " + std::to_string(bytes) + " bytes");
    return p;
  }
  void deallocate(void *ptr, size_t) override { std::free(ptr); }
  Device device() const override { return Device::CPU; }
};

CpuAllocator cpuAllocator;
std::atomic<Allocator *> allocators[kNumDevices] = {&cpuAllocator, nullptr};

std::atomic<int64_t> liveBytes{0}, peakBytes{0};

void noteAllocated(int64_t bytes) {
  int64_t now = liveBytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = peakBytes.load(std::memory_order_relaxed);
  while (now > peak && !peakBytes.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

// --- per-thread caches of freed tensor objects and small CPU buffers -----------------------
//
// A loop of small-tensor ops (an LSTM step: ~50 ops on 1x32 tensors) would otherwise spend a
// third of its time in malloc/free: every result is a TensorImpl (two shape vectors) and a
// Buffer whose memory comes from aligned_alloc, which bypasses glibc's fast per-thread bins.
// Freed TensorImpls (their vectors keep their capacity) and freed CPU buffers up to
// kMaxCachedBuffer bytes (the Buffer object with its memory, binned by the 64-byte-rounded
// size the allocator really gave) go to lists of the thread that frees them, and the next
// allocation of that thread takes them back. Memory statistics count a cached buffer as
// freed. Sanitizer builds skip the caches so that use-after-free stays detectable.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUseCaches = false;
#else
constexpr bool kUseCaches = true;
#endif
constexpr size_t kMaxCachedBuffer = 64 * 1024;      ///< larger buffers go back to malloc
constexpr size_t kMaxCachedBytes = 8 * 1024 * 1024; ///< per thread, all bins together
constexpr size_t kMaxCachedImpls = 4096;            ///< per thread
constexpr size_t kBufferBins = kMaxCachedBuffer / 64;

/// The bytes CpuAllocator really allocates for a request of `bytes`.
size_t allocatedSize(size_t bytes) { return bytes == 0 ? 64 : (bytes + 63) / 64 * 64; }

/// A thread's lists. Plain data (no constructor or destructor), so reaching it costs one
/// thread-local load and no initialisation check; the first object cached registers the
/// thread's CacheDrainer, which frees the lists when the thread exits.
struct ThreadCache {
  TensorImpl *impls; ///< linked through their `buffer` field
  size_t implCount;
  Buffer *bins[kBufferBins]; ///< bin i: buffers of 64 * (i + 1) bytes, linked through their memory
  size_t bufferBytes;
  bool drainerSet; ///< this thread's CacheDrainer exists
  bool gone;       ///< the drainer ran (thread exit): later frees bypass the lists
};
thread_local ThreadCache threadCache;

Buffer *&nextBuffer(Buffer *b) { return *static_cast<Buffer **>(b->data()); }
TensorImpl *nextImpl(const TensorImpl *t) { return reinterpret_cast<TensorImpl *>(t->buffer); }
void setNextImpl(TensorImpl *t, TensorImpl *next) { t->buffer = reinterpret_cast<Buffer *>(next); }

struct CacheDrainer {
  ~CacheDrainer() {
    ThreadCache &c = threadCache;
    c.gone = true;
    while (TensorImpl *t = c.impls) {
      c.impls = nextImpl(t);
      t->buffer = nullptr;
      delete t;
    }
    for (Buffer *&bin : c.bins)
      while (Buffer *b = bin) {
        bin = nextBuffer(b);
        cpuAllocator.deallocate(b->data(), b->bytes());
        delete b;
      }
  }
};
thread_local CacheDrainer cacheDrainer;

/// This thread's lists, or null when caching is off or the thread is exiting.
ThreadCache *cacheForInsert() {
  ThreadCache &c = threadCache;
  if (!kUseCaches || c.gone)
    return nullptr;
  if (!c.drainerSet) {
    (void)&cacheDrainer; // constructs it, so that its destructor runs at thread exit
    c.drainerSet = true;
  }
  return &c;
}

/// A cached buffer of `bytes` (allocatedSize) for this thread, or null.
Buffer *takeCachedBuffer(size_t bytes) {
  size_t size = allocatedSize(bytes);
  ThreadCache &c = threadCache;
  if (!kUseCaches || size > kMaxCachedBuffer || c.gone)
    return nullptr;
  Buffer *&bin = c.bins[size / 64 - 1];
  Buffer *b = bin;
  if (!b)
    return nullptr;
  bin = nextBuffer(b);
  c.bufferBytes -= size;
  return b;
}

/// Keeps a freed CPU buffer (no references left) for reuse; false when the cache is full.
bool cacheBuffer(Buffer *b) {
  size_t size = allocatedSize(b->bytes());
  ThreadCache *c = size <= kMaxCachedBuffer ? cacheForInsert() : nullptr;
  if (!c || c->bufferBytes + size > kMaxCachedBytes)
    return false;
  Buffer *&bin = c->bins[size / 64 - 1];
  nextBuffer(b) = bin;
  bin = b;
  c->bufferBytes += size;
  return true;
}

/// A TensorImpl with one reference, no buffer and offset 0 (shape, strides: set them).
TensorImpl *newImpl() {
  if (kUseCaches) {
    ThreadCache &c = threadCache;
    if (TensorImpl *t = c.impls) {
      c.impls = nextImpl(t);
      --c.implCount;
      t->buffer = nullptr;
      t->offset = 0;
      t->refs.store(1, std::memory_order_relaxed);
      return t;
    }
  }
  return new TensorImpl();
}

/// Frees a TensorImpl whose last reference was dropped.
void freeImpl(TensorImpl *t) {
  ThreadCache *c = cacheForInsert();
  if (!c || c->implCount >= kMaxCachedImpls) {
    delete t;
    return;
  }
  if (t->buffer)
    t->buffer->release();
  setNextImpl(t, c->impls);
  c->impls = t;
  ++c->implCount;
}

/// Row-major strides of the rank-r `shape` into `strides`.
void fillContiguousStrides(int64_t *strides, const int64_t *shape, size_t r) {
  int64_t acc = 1;
  for (size_t i = r; i-- > 0;) {
    strides[i] = acc;
    acc *= shape[i] == 0 ? 1 : shape[i];
  }
}

/// A rank-r view of `base`'s buffer at `offset` whose shape and strides `fill(shape, strides)`
/// writes in place: a recycled TensorImpl's vectors keep their memory, so making the view
/// allocates nothing (Tensor::view copies vectors the caller had to build). `fill` may throw.
template <typename Fill> Tensor viewOf(const Tensor &base, size_t r, int64_t offset, Fill &&fill) {
  TensorImpl *v = newImpl();
  v->dtype = base.dtype();
  v->offset = offset;
  v->buffer = base.buffer();
  v->buffer->retain();
  Tensor out = Tensor::adopt(v);
  v->shape.resize(r);
  v->strides.resize(r);
  fill(v->shape.data(), v->strides.data());
  return out;
}

/// t's strides viewed at `target` (0 on broadcast dimensions) into `out`; throws when t's
/// shape does not broadcast to `target`.
void broadcastStridesInto(const Tensor &t, const Shape &target, int64_t *out) {
  int64_t r = t.rank(), tr = (int64_t)target.size();
  auto fail = [&] {
    throw Error("cannot broadcast " + t.typeString() + " to shape " + shapeString(target));
  };
  if (r > tr)
    fail();
  for (int64_t i = 0; i < tr; ++i) {
    int64_t si = i - (tr - r);
    out[i] = 0;
    if (si < 0)
      continue;
    int64_t d = t.dim(si);
    if (d == target[i])
      out[i] = t.strides()[si];
    else if (d != 1)
      fail();
  }
}

} // namespace

MemoryStats memoryStats() {
  return {liveBytes.load(std::memory_order_relaxed), peakBytes.load(std::memory_order_relaxed)};
}

void resetPeakMemory() { peakBytes.store(liveBytes.load(std::memory_order_relaxed)); }

Allocator *allocatorFor(Device d) { return allocators[(int)d].load(); }
void setAllocator(Allocator *alloc) { allocators[(int)alloc->device()].store(alloc); }

Buffer *Buffer::create(size_t bytes, Device d) {
  Allocator *a = allocatorFor(d);
  if (!a)
    throw Error(std::string("no allocator for device '") + deviceName(d) + "'");
  if (Buffer *b = a == &cpuAllocator ? takeCachedBuffer(bytes) : nullptr) {
    b->refs.store(1, std::memory_order_relaxed);
    b->size = bytes;
    b->claimed.store(bytes, std::memory_order_relaxed);
    noteAllocated(int64_t(bytes));
    return b;
  }
  void *p = a->allocate(bytes);
  noteAllocated(int64_t(bytes));
  return new Buffer(p, bytes, a);
}

namespace {

/// The owner of one wrapped block of memory (Buffer::wrap): freeing the block calls its release
/// function and ends the owner.
class ExternalMemory final : public Allocator {
public:
  ExternalMemory(void (*release)(void *), void *context) : releaseFn(release), context(context) {}
  void *allocate(size_t) override { throw Error("internal error: external memory cannot grow"); }
  void deallocate(void *, size_t) override {
    if (releaseFn)
      releaseFn(context);
    delete this;
  }
  Device device() const override { return Device::CPU; }

private:
  void (*releaseFn)(void *);
  void *context;
};

} // namespace

Buffer *Buffer::wrap(void *data, size_t bytes, void (*release)(void *), void *context) {
  noteAllocated(int64_t(bytes)); // counted while dlm holds it, as release() uncounts it
  return new Buffer(data, bytes, new ExternalMemory(release, context));
}

Tensor Tensor::external(DType dtype, const Shape &shape, const Shape &strides, void *data,
                        size_t bytes, void (*release)(void *), void *context) {
  TensorImpl *impl = newImpl();
  impl->dtype = dtype;
  impl->shape = shape;
  impl->strides = strides;
  impl->buffer = Buffer::wrap(data, bytes, release, context);
  return Tensor(impl);
}

void Buffer::release() {
  // The only reference (the common case: a temporary's buffer): nobody can take another, so
  // the acquire load that sees 1 replaces the atomic read-modify-write (~5 ns each here).
  if (refs.load(std::memory_order_acquire) == 1 ||
      refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    liveBytes.fetch_sub(int64_t(size), std::memory_order_relaxed);
    if (alloc == &cpuAllocator && cacheBuffer(this))
      return;
    alloc->deallocate(ptr, size);
    delete this;
  }
}

int64_t numelOf(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) // (not check(): every tensor made comes here, the message only on failure)
      throw Error("negative dimension " + std::to_string(d) + " in shape " + shapeString(shape));
    if (__builtin_mul_overflow(n, d, &n)) // (no division per dimension)
      throw Error("shape " + shapeString(shape) + " has too many elements");
  }
  return n;
}

void setContiguousStrides(Shape &strides, const Shape &shape) {
  strides.resize(shape.size());
  fillContiguousStrides(strides.data(), shape.data(), shape.size());
}

Shape contiguousStrides(const Shape &shape) {
  Shape s(shape.size());
  fillContiguousStrides(s.data(), shape.data(), shape.size());
  return s;
}

std::string shapeString(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t normalizeAxis(int64_t axis, int64_t rank, const char *what) {
  int64_t r = rank == 0 ? 1 : rank;
  if (axis < -r || axis >= r)
    throw Error(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                std::to_string(rank));
  return axis < 0 ? axis + r : axis;
}

Tensor &Tensor::operator=(const Tensor &o) {
  if (o.impl)
    o.impl->refs.fetch_add(1, std::memory_order_relaxed);
  if (impl)
    releaseImpl();
  impl = o.impl;
  return *this;
}

Tensor &Tensor::operator=(Tensor &&o) noexcept {
  if (this != &o) {
    if (impl)
      releaseImpl();
    impl = o.impl;
    o.impl = nullptr;
  }
  return *this;
}

void Tensor::releaseImpl() {
  TensorImpl *t = impl;
  impl = nullptr;
  // As in Buffer::release: holding the only reference needs no atomic read-modify-write.
  if (t->refs.load(std::memory_order_acquire) == 1 ||
      t->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
    freeImpl(t);
}

TensorImpl *Tensor::release() {
  TensorImpl *i = impl;
  impl = nullptr;
  return i;
}

Tensor Tensor::empty(DType dtype, const Shape &shape, Device device) {
  int64_t n = numelOf(shape);
  size_t esize = dtypeSize(dtype);
  if (n > (int64_t)(std::numeric_limits<int64_t>::max() / 16))
    throw Error("tensor of shape " + shapeString(shape) + " is too large");
  TensorImpl *impl = newImpl();
  impl->dtype = dtype;
  impl->shape = shape;
  setContiguousStrides(impl->strides, shape);
  try {
    impl->buffer = Buffer::create((size_t)n * esize, device);
  } catch (...) {
    freeImpl(impl);
    throw;
  }
  return Tensor(impl);
}

Tensor Tensor::zeros(DType dtype, const Shape &shape) {
  Tensor t = empty(dtype, shape);
  std::memset(t.rawData(), 0, (size_t)t.numel() * t.elementSize());
  return t;
}

Tensor Tensor::fromData(DType dtype, const Shape &shape, const void *data) {
  Tensor t = empty(dtype, shape);
  if (t.numel())
    std::memcpy(t.rawData(), data, (size_t)t.numel() * t.elementSize());
  return t;
}

Tensor Tensor::scalar(DType dtype, double v) {
  Tensor t = empty(dtype, {});
  dispatchDType(dtype, [&]<typename T>() { *t.data<T>() = static_cast<T>(v); });
  return t;
}

Tensor Tensor::scalarI64(int64_t v) {
  Tensor t = empty(DType::I64, {});
  *t.data<int64_t>() = v;
  return t;
}
Tensor Tensor::scalarF64(double v) { return scalar(DType::F64, v); }
Tensor Tensor::scalarBool(bool v) {
  Tensor t = empty(DType::Bool, {});
  *t.data<bool>() = v;
  return t;
}

bool Tensor::isContiguous() const {
  int64_t expect = 1;
  for (size_t i = impl->shape.size(); i-- > 0;) {
    if (impl->shape[i] == 1)
      continue;
    if (impl->shape[i] == 0)
      return true;
    if (impl->strides[i] != expect)
      return false;
    expect *= impl->shape[i];
  }
  return true;
}

std::string Tensor::typeString() const {
  return std::string(dtypeName(dtype())) + shapeString(shape());
}

void *Tensor::rawData() const {
  return static_cast<char *>(impl->buffer->data()) + impl->offset * (int64_t)elementSize();
}

namespace {
int64_t linearIndex(const Tensor &t, const Shape &index) {
  check(index.size() == t.shape().size(), "index rank does not match tensor rank");
  int64_t off = 0;
  for (size_t i = 0; i < index.size(); ++i) {
    check(index[i] >= 0 && index[i] < t.shape()[i], "index out of range");
    off += index[i] * t.strides()[i];
  }
  return off;
}
} // namespace

double Tensor::getF64(const Shape &index) const {
  int64_t off = linearIndex(*this, index);
  return dispatchDType(dtype(), [&]<typename T>() { return (double)data<T>()[off]; });
}

int64_t Tensor::getI64(const Shape &index) const {
  int64_t off = linearIndex(*this, index);
  return dispatchDType(dtype(), [&]<typename T>() { return (int64_t)data<T>()[off]; });
}

double Tensor::item() const {
  if (numel() != 1)
    throw Error("expected a single value, got " + typeString());
  return dispatchDType(dtype(), [&]<typename T>() { return (double)data<T>()[0]; });
}

int64_t Tensor::itemI64() const {
  if (numel() != 1)
    throw Error("expected a single value, got " + typeString());
  return dispatchDType(dtype(), [&]<typename T>() { return (int64_t)data<T>()[0]; });
}

bool Tensor::itemBool() const {
  if (numel() != 1)
    throw Error("expected a single value, got " + typeString());
  return dispatchDType(dtype(), [&]<typename T>() { return data<T>()[0] != T(0); });
}

Tensor Tensor::clone() const {
  Tensor out = empty(dtype(), shape(), device());
  copyInto(out, *this);
  return out;
}

Tensor Tensor::contiguous() const { return isContiguous() ? *this : clone(); }

Tensor Tensor::view(const Shape &shape, const Shape &strides, int64_t offset) const {
  TensorImpl *v = newImpl();
  v->dtype = dtype();
  v->shape = shape;
  v->strides = strides;
  v->offset = offset;
  v->buffer = impl->buffer;
  v->buffer->retain();
  return Tensor(v);
}

Tensor Tensor::reshape(Shape newShape) const {
  // (No check(): reshape runs in loops, so messages are built only on failure.)
  int64_t known = 1, inferAt = -1;
  for (size_t i = 0; i < newShape.size(); ++i) {
    if (newShape[i] == -1) {
      if (inferAt >= 0)
        throw Error("reshape: only one dimension can be -1 in " + shapeString(newShape));
      inferAt = (int64_t)i;
      continue;
    }
    if (newShape[i] < 0)
      throw Error("reshape: negative dimension in " + shapeString(newShape));
    known *= newShape[i];
  }
  int64_t n = numel();
  auto fail = [&] {
    throw Error("cannot reshape " + typeString() + " to " + shapeString(newShape));
  };
  if (inferAt >= 0) {
    if (known == 0 || n % known != 0)
      fail();
    newShape[inferAt] = n / known;
  }
  if (numelOf(newShape) != n)
    fail();
  Tensor copy;
  if (!isContiguous())
    copy = clone();
  const Tensor &src = copy ? copy : *this;
  return viewOf(src, newShape.size(), src.offset(), [&](int64_t *shape, int64_t *strides) {
    std::copy(newShape.begin(), newShape.end(), shape);
    fillContiguousStrides(strides, shape, newShape.size());
  });
}

Tensor Tensor::select(int64_t axis, int64_t i) const {
  const Shape &shape = this->shape(), &strides = this->strides();
  size_t r = shape.size();
  return viewOf(*this, r - 1, offset() + i * strides[axis],
                [&](int64_t *vshape, int64_t *vstrides) {
                  for (size_t d = 0, k = 0; d < r; ++d)
                    if ((int64_t)d != axis) {
                      vshape[k] = shape[d];
                      vstrides[k++] = strides[d];
                    }
                });
}

Shape takeShape(const Shape &x, const Shape &indices, int64_t axis) {
  Shape out(x.begin(), x.begin() + axis);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), x.begin() + axis + 1, x.end());
  return out;
}

Tensor Tensor::transpose(const std::vector<int64_t> &perm) const {
  int64_t r = rank();
  if (!perm.empty() && (int64_t)perm.size() != r)
    throw Error("transpose: permutation " + shapeString(perm) + " does not match rank " +
                std::to_string(r));
  // Axis i of the view is axis axisAt(i) of this tensor; an empty perm reverses the axes.
  auto axisAt = [&](int64_t i) {
    return perm.empty() ? r - 1 - i : normalizeAxis(perm[i], r, "transpose axis");
  };
  if (!perm.empty()) { // each axis exactly once (a bit mask up to rank 64: no allocation)
    uint64_t seenMask = 0;
    std::vector<bool> seenMore(r > 64 ? r : 0);
    for (int64_t i = 0; i < r; ++i) {
      int64_t a = axisAt(i);
      bool seen = r <= 64 ? (seenMask >> a & 1) != 0 : bool(seenMore[a]);
      if (seen)
        throw Error("transpose: repeated axis in permutation " + shapeString(perm));
      if (r <= 64)
        seenMask |= uint64_t(1) << a;
      else
        seenMore[a] = true;
    }
  }
  return viewOf(*this, r, offset(), [&](int64_t *shape, int64_t *strides) {
    for (int64_t i = 0; i < r; ++i) {
      int64_t a = axisAt(i);
      shape[i] = this->shape()[a];
      strides[i] = this->strides()[a];
    }
  });
}

Tensor Tensor::broadcastTo(const Shape &target) const {
  return viewOf(*this, target.size(), offset(), [&](int64_t *shape, int64_t *strides) {
    broadcastStridesInto(*this, target, strides);
    std::copy(target.begin(), target.end(), shape);
  });
}

Tensor Tensor::to(DType dt) const {
  if (dt == dtype())
    return contiguous();
  Tensor out = empty(dt, shape());
  copyInto(out, *this);
  return out;
}

Shape broadcastByteStrides(const Tensor &t, const Shape &shape) {
  Shape s(shape.size());
  broadcastStridesInto(t, shape, s.data());
  for (auto &x : s)
    x *= (int64_t)t.elementSize();
  return s;
}

namespace {
template <typename D, typename S> D convertElem(S v) {
  if constexpr (std::is_same_v<D, bool>)
    return v != S(0);
  else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>) {
    // Casting NaN or out-of-range floats to ints is undefined in C++; saturate instead.
    if (std::isnan(v))
      return D(0);
    if (v >= (S)std::numeric_limits<D>::max())
      return std::numeric_limits<D>::max();
    if (v <= (S)std::numeric_limits<D>::min())
      return std::numeric_limits<D>::min();
    return static_cast<D>(v);
  } else
    return static_cast<D>(v);
}
} // namespace

void copyInto(const Tensor &dst, const Tensor &src) {
  check(dst.device() == Device::CPU && src.device() == Device::CPU,
        "copyInto: CPU tensors expected");
  const Shape &shape = dst.shape();
  std::array<Shape, 2> strides = {broadcastByteStrides(dst, shape),
                                  broadcastByteStrides(src, shape)};
  dispatchDType(dst.dtype(), [&]<typename D>() {
    dispatchDType(src.dtype(), [&]<typename S>() {
      forEachStrided<2>(shape, {bytePtr(dst), bytePtr(src)}, strides,
                        [](std::array<char *, 2> p, std::array<int64_t, 2> st, int64_t n) {
                          if (st[0] == sizeof(D) && st[1] == sizeof(S)) {
                            D *d = reinterpret_cast<D *>(p[0]);
                            const S *s = reinterpret_cast<const S *>(p[1]);
                            for (int64_t i = 0; i < n; ++i)
                              d[i] = convertElem<D, S>(s[i]);
                            return;
                          }
                          for (int64_t i = 0; i < n; ++i)
                            *reinterpret_cast<D *>(p[0] + i * st[0]) =
                                convertElem<D, S>(*reinterpret_cast<const S *>(p[1] + i * st[1]));
                        });
    });
  });
}

} // namespace dlm::rt
