//===- runtime/Tensor.h - Tensors: dtype, shape, strides, shared buffers ---===//
//
// A Tensor is a refcounted handle to a TensorImpl: an element type, a shape, strides and an
// offset (both counted in elements, not bytes) into a refcounted, 64-byte-aligned Buffer that
// lives on one device. Views (slice, transpose, broadcast_to, reshape of a contiguous tensor)
// share the buffer and only change shape/strides/offset; a broadcast dimension has stride 0.
// Buffers come from a per-device Allocator, so a GPU backend can plug in its own (caching)
// allocator with `setAllocator`.
//
// Scalars of the language travel as 0-d tensors: int as i64, float as f64, bool as bool.
//
// A TensorImpl* is also the C ABI's `dlm_tensor*` (runtime/CApi.h): retain/release act on the
// same intrusive count, so C++ and JIT-generated code share tensors without wrappers.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_TENSOR_H
#define DLM_RUNTIME_TENSOR_H

#include "runtime/DType.h"
#include "runtime/Error.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace dlm::rt {

/// Where a buffer lives.
enum class Device : uint8_t { CPU = 0, CUDA = 1 };
constexpr int kNumDevices = 2;
const char *deviceName(Device d);

using Shape = std::vector<int64_t>;

/// Hands out raw memory on one device. Implementations must be thread-safe.
class Allocator {
public:
  virtual ~Allocator() = default;
  /// Returns `bytes` bytes aligned to at least 64 bytes, or throws rt::Error("out of memory ...").
  /// A request of 0 bytes returns a valid, distinct pointer.
  virtual void *allocate(size_t bytes) = 0;
  virtual void deallocate(void *ptr, size_t bytes) = 0;
  virtual Device device() const = 0;
};

/// The allocator used for new buffers on `d` (the aligned malloc one for the CPU; none for
/// CUDA until a backend registers one).
Allocator *allocatorFor(Device d);
/// Replaces the allocator of `alloc->device()`; buffers remember the allocator that made them.
void setAllocator(Allocator *alloc);

/// A refcounted block of device memory.
class Buffer {
public:
  /// Allocates `bytes` on `d`; the memory is uninitialised.
  static Buffer *create(size_t bytes, Device d);
  /// CPU memory the runtime does not own (a host program's array: docs/embedding.md):
  /// `release(context)` runs when the last reference goes (null `release`: memory lent for a
  /// while, whose lender keeps it alive as long as any tensor uses it).
  static Buffer *wrap(void *data, size_t bytes, void (*release)(void *), void *context);
  void retain() { refs.fetch_add(1, std::memory_order_relaxed); }
  void release();
  /// References held (1: only one tensor uses this memory; generated code may then write it).
  int64_t useCount() const { return refs.load(std::memory_order_acquire); }
  void *data() const { return ptr; }
  size_t bytes() const { return size; }
  Device device() const { return alloc->device(); }

  /// Bytes from the start that tensors may see: all of them unless `unclaim` lowered the mark.
  /// Memory past the mark was never visible through any view, so the holder of a view ending
  /// exactly at the mark may `claim` more and write it while every other view stays unchanged
  /// (autodiff's stacks grow in place this way: kernels/cpu/Stack.cpp).
  size_t claimedBytes() const { return claimed.load(std::memory_order_acquire); }
  /// Moves the mark from `from` to `to` (at most bytes()); false when the mark is elsewhere
  /// (another view claimed first).
  bool claim(size_t from, size_t to) {
    return to <= size && claimed.compare_exchange_strong(from, to, std::memory_order_acq_rel);
  }
  /// Lowers the mark of a buffer just made, before any view past `visible` bytes exists.
  void unclaim(size_t visible) { claimed.store(visible, std::memory_order_release); }

private:
  Buffer(void *p, size_t n, Allocator *a) : ptr(p), size(n), claimed(n), alloc(a) {}
  std::atomic<int64_t> refs{1};
  void *ptr;
  size_t size;
  std::atomic<size_t> claimed;
  Allocator *alloc;
};

/// The object behind a Tensor handle (and behind a C `dlm_tensor*`).
struct TensorImpl {
  std::atomic<int64_t> refs{1};
  DType dtype = DType::F32;
  Shape shape;
  Shape strides;      ///< In elements; 0 for a broadcast dimension.
  int64_t offset = 0; ///< In elements, from the start of the buffer.
  Buffer *buffer = nullptr;
  ~TensorImpl() {
    if (buffer)
      buffer->release();
  }
};

/// Number of elements of a shape (1 for the 0-d shape). Throws on overflow or negative dims.
int64_t numelOf(const Shape &shape);
/// Row-major strides of a shape.
Shape contiguousStrides(const Shape &shape);
/// Row-major strides of `shape` into `strides`, reusing its memory (no allocation when it has
/// the capacity: per-thread scratch shapes on hot paths).
void setContiguousStrides(Shape &strides, const Shape &shape);
/// The shape of x.take(indices, axis): `x`'s with `axis` replaced by the indices' shape.
Shape takeShape(const Shape &x, const Shape &indices, int64_t axis);
/// "[3, 4]".
std::string shapeString(const Shape &shape);

/// A refcounted handle to a tensor. A default-constructed Tensor is null (`!t`).
class Tensor {
public:
  Tensor() = default;
  /// Adopts one reference of `impl` (no retain).
  static Tensor adopt(TensorImpl *impl) { return Tensor(impl); }
  /// Shares `impl`, taking a new reference.
  static Tensor share(TensorImpl *impl) {
    if (impl)
      impl->refs.fetch_add(1, std::memory_order_relaxed);
    return Tensor(impl);
  }
  Tensor(const Tensor &o) : impl(o.impl) { retainImpl(); }
  Tensor(Tensor &&o) noexcept : impl(o.impl) { o.impl = nullptr; }
  Tensor &operator=(const Tensor &o);
  Tensor &operator=(Tensor &&o) noexcept;
  ~Tensor() {
    if (impl)
      releaseImpl();
  }

  // --- creation -------------------------------------------------------------------------
  /// A new contiguous tensor with uninitialised contents.
  static Tensor empty(DType dtype, const Shape &shape, Device device = Device::CPU);
  /// A new contiguous tensor filled with zeros (CPU only).
  static Tensor zeros(DType dtype, const Shape &shape);
  /// A new contiguous tensor copied from `data` (numel * dtypeSize bytes, row-major).
  static Tensor fromData(DType dtype, const Shape &shape, const void *data);
  /// 0-d scalars: the language's int, float and bool.
  static Tensor scalarI64(int64_t v);
  static Tensor scalarF64(double v);
  static Tensor scalarBool(bool v);
  /// A 0-d tensor of `dtype` holding `v` converted like a cast.
  static Tensor scalar(DType dtype, double v);
  /// A view of CPU memory the runtime does not own (Buffer::wrap): `strides` in elements,
  /// non-negative, the elements within `bytes` from `data`; the caller checked both.
  static Tensor external(DType dtype, const Shape &shape, const Shape &strides, void *data,
                         size_t bytes, void (*release)(void *), void *context);
  /// A tensor of `shape` from row-major values (tests and small constants).
  template <typename T>
  static Tensor fromVector(DType dtype, const std::vector<T> &v, const Shape &shape);
  /// A 1-D tensor from values.
  template <typename T> static Tensor fromVector(DType dtype, const std::vector<T> &v) {
    return fromVector(dtype, v, Shape{(int64_t)v.size()});
  }

  // --- properties -----------------------------------------------------------------------
  explicit operator bool() const { return impl != nullptr; }
  TensorImpl *get() const { return impl; }
  /// Gives up ownership of one reference (for the C ABI).
  TensorImpl *release();
  DType dtype() const { return impl->dtype; }
  const Shape &shape() const { return impl->shape; }
  const Shape &strides() const { return impl->strides; }
  int64_t offset() const { return impl->offset; }
  int64_t rank() const { return (int64_t)impl->shape.size(); }
  int64_t dim(int64_t i) const { return impl->shape[i]; }
  int64_t numel() const { return numelOf(impl->shape); }
  Device device() const { return impl->buffer->device(); }
  Buffer *buffer() const { return impl->buffer; }
  size_t elementSize() const { return dtypeSize(impl->dtype); }
  /// Row-major with no gaps (size-1 dims may have any stride).
  bool isContiguous() const;
  /// "f32[3, 4]" — the form used in error messages.
  std::string typeString() const;

  /// Pointer to the first element (at `offset`).
  void *rawData() const;
  template <typename T> T *data() const { return static_cast<T *>(rawData()); }

  // --- element access (CPU; any layout) -------------------------------------------------
  /// The element at a multi-index, converted to double / int64.
  double getF64(const Shape &index) const;
  int64_t getI64(const Shape &index) const;
  /// The single element of a 0-d or 1-element tensor, converted.
  double item() const;
  int64_t itemI64() const;
  bool itemBool() const;

  // --- layout ---------------------------------------------------------------------------
  /// This tensor if contiguous, else a contiguous copy.
  Tensor contiguous() const;
  /// A contiguous copy (always new memory).
  Tensor clone() const;
  /// Same buffer, new shape/strides/offset (no checks beyond the buffer bounds).
  Tensor view(const Shape &shape, const Shape &strides, int64_t offset) const;
  /// Reshape: a view when contiguous, otherwise a copy. `shape` may hold one -1.
  Tensor reshape(Shape shape) const;
  /// The view of element `i` (already in range) along `axis`: that axis removed (x[..., i, ...]).
  Tensor select(int64_t axis, int64_t i) const;
  /// Permuted view; `perm` empty reverses the axes.
  Tensor transpose(const std::vector<int64_t> &perm = {}) const;
  /// Broadcast view (stride 0 on expanded dims); throws if not broadcastable.
  Tensor broadcastTo(const Shape &shape) const;
  /// A tensor of `dtype` with the same values (a new contiguous tensor; this one if equal dtype
  /// and contiguous).
  Tensor to(DType dtype) const;

private:
  explicit Tensor(TensorImpl *i) : impl(i) {}
  void retainImpl() {
    if (impl)
      impl->refs.fetch_add(1, std::memory_order_relaxed);
  }
  /// Drops this handle's reference (impl not null) and nulls the handle.
  void releaseImpl();
  TensorImpl *impl = nullptr;
};

/// Normalises an axis in [-rank, rank) to [0, rank); throws naming `what` otherwise.
int64_t normalizeAxis(int64_t axis, int64_t rank, const char *what = "axis");

/// Copies `src` into `dst` elementwise (same shape; dtypes converted; any layouts).
void copyInto(const Tensor &dst, const Tensor &src);

/// Calls `f.template operator()<T>()` with T the C++ type of `dtype` (bool for Bool).
template <typename F> decltype(auto) dispatchDType(DType dtype, F &&f) {
  switch (dtype) {
  case DType::F32:
    return f.template operator()<float>();
  case DType::F64:
    return f.template operator()<double>();
  case DType::I32:
    return f.template operator()<int32_t>();
  case DType::I64:
    return f.template operator()<int64_t>();
  case DType::Bool:
    return f.template operator()<bool>();
  }
  return f.template operator()<float>();
}

/// The DType of a C++ element type.
template <typename T> constexpr DType dtypeOf();
template <> constexpr DType dtypeOf<float>() { return DType::F32; }
template <> constexpr DType dtypeOf<double>() { return DType::F64; }
template <> constexpr DType dtypeOf<int32_t>() { return DType::I32; }
template <> constexpr DType dtypeOf<int64_t>() { return DType::I64; }
template <> constexpr DType dtypeOf<bool>() { return DType::Bool; }

template <typename T>
Tensor Tensor::fromVector(DType dtype, const std::vector<T> &v, const Shape &shape) {
  Tensor t = empty(dtype, shape);
  if (t.numel() != (int64_t)v.size()) // (not check(): the message is built only on failure)
    throw Error("fromVector: " + std::to_string(v.size()) + " values for shape " +
                shapeString(t.shape()));
  dispatchDType(dtype, [&]<typename E>() {
    E *p = t.data<E>();
    for (size_t i = 0; i < v.size(); ++i)
      p[i] = static_cast<E>(v[i]);
  });
  return t;
}

} // namespace dlm::rt

#endif // DLM_RUNTIME_TENSOR_H
