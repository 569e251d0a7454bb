//===- kernels/cpu/Stack.cpp - Autodiff's runtime ops: stacks, zeros_like --===//
//
// A stack is an ordinary tensor whose dim 0 counts the entries (docs/autodiff.md "Stacks"):
// `stack_new{dtype, rank}` is empty ([0, 0, ...]), `stack_push(s, x)` returns s with x appended
// (the entry shape is fixed by the first push), `stack_top(s)` is the last entry and
// `stack_pop(s)` s without it; `stack_extend(s, t)` appends t's entries, `stack_tail(s, n)` and
// `stack_drop(s, n)` split off the top n (a nested loop's stack travels on its outer loop's).
// Values, not state: the stacks are differentiable graph values like TF2's TensorLists, so a
// gradient graph can be differentiated again.
//
// Yet no op copies a whole stack on the way (a loop's gradient would cost O(n^2)): top, pop,
// tail and drop are views of the stack's buffer, and push/extend write the new entries into
// room past the buffer's claimed mark (runtime/Tensor.h) when the stack ends exactly there — the
// newest version of a stack does, so a loop's pushes grow one buffer in place, doubling it when
// full (amortised O(entry) per push). An older version (pushed to again after a pop, or by
// grad(grad(f))'s replay) finds the mark moved on and copies: every version keeps its entries.
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/CpuKernels.h"
#include "kernels/cpu/StackOps.h"
#include "runtime/StackStats.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace dlm::rt {
namespace {
std::atomic<int64_t> pushes{0}, bytesPushed{0}, peakBytes{0}, peakReserved{0};

void raiseTo(std::atomic<int64_t> &peak, int64_t value) {
  int64_t seen = peak.load();
  while (value > seen && !peak.compare_exchange_weak(seen, value)) {
  }
}
} // namespace

StackStats stackStats() {
  return {pushes.load(), bytesPushed.load(), peakBytes.load(), peakReserved.load()};
}

void resetStackStats() {
  pushes = 0;
  bytesPushed = 0;
  peakBytes = 0;
  peakReserved = 0;
}

void recordStackPush(int64_t entryBytes, int64_t stackBytes, int64_t reservedBytes) {
  pushes.fetch_add(1);
  bytesPushed.fetch_add(entryBytes);
  raiseTo(peakBytes, stackBytes);
  raiseTo(peakReserved, reservedBytes);
}

namespace cpu {
namespace {

Tensor appendEntries(const Tensor &s, const Tensor &entries, int64_t count, const Shape &entry,
                     const char *op);

void zerosLikeKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 1, "zeros_like");
  const Tensor &x = tensorArg(ins, 0, "zeros_like");
  outs.push_back(Tensor::zeros(x.dtype(), x.shape()));
}

/// stop_gradient(x) is x (its gradient is zero: compiler/autodiff never differentiates it).
void stopGradientKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 1, "stop_gradient");
  outs.push_back(tensorArg(ins, 0, "stop_gradient"));
}

/// after(x, token) is x: the executor runs it only once token exists (a checkpoint's ordering).
void afterKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 2, "after");
  outs.push_back(tensorArg(ins, 0, "after"));
}

void stackNewKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 0, "stack_new");
  Shape shape(size_t(attrs.getInt("rank", 0)) + 1, 0);
  outs.push_back(Tensor::zeros(attrs.getDType("dtype", DType::F32), shape));
}

void stackPushKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 2, "stack_push");
  outs.push_back(stackPush(tensorArg(ins, 0, "stack_push"), tensorArg(ins, 1, "stack_push")));
}

/// A stack's entry shape (its shape without dim 0).
Shape entryShape(const Tensor &s) { return Shape(s.shape().begin() + 1, s.shape().end()); }
/// The elements and the bytes of one entry (no vector built: pushes run every iteration). The
/// dims were checked when the stack was made.
int64_t entryNumel(const Tensor &s) {
  int64_t n = 1;
  for (size_t d = 1; d < s.shape().size(); ++d)
    n *= s.shape()[d];
  return n;
}
int64_t entryBytesOf(const Tensor &s) { return entryNumel(s) * int64_t(s.elementSize()); }

/// Entries [from, from + count) of contiguous s as a view (no copy): s's buffer is never
/// written where a view can see it (appends go past the buffer's claimed mark only). The
/// view's shape and strides are built in per-thread scratch, so a loop allocates no vector.
Tensor entriesView(const Tensor &s, int64_t from, int64_t count) {
  thread_local Shape shape, strides;
  shape.assign(s.shape().begin(), s.shape().end());
  shape[0] = count;
  setContiguousStrides(strides, shape);
  return s.view(shape, strides, s.offset() + from * entryNumel(s));
}

/// s, or a contiguous copy of it when it is not (no reference taken when it is).
struct Contiguous {
  explicit Contiguous(const Tensor &s) : copy(s.isContiguous() ? Tensor() : s.contiguous()) {}
  const Tensor &of(const Tensor &s) const { return copy ? copy : s; }
  Tensor copy;
};

void stackTopKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 1, "stack_top");
  outs.push_back(stackTop(tensorArg(ins, 0, "stack_top")));
}

void stackPopKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 1, "stack_pop");
  outs.push_back(stackPop(tensorArg(ins, 0, "stack_pop")));
}

/// Appends in place when s is contiguous on the CPU and ends at its buffer's claimed mark with
/// room for `bytes` more (the newest version of a stack). Null when it cannot.
Tensor appendInPlace(const Tensor &s, const Tensor &entries, int64_t count) {
  if (s.dim(0) == 0 || s.device() != Device::CPU || !s.isContiguous() ||
      entries.dtype() != s.dtype())
    return Tensor();
  size_t entryBytes = size_t(entryBytesOf(s));
  size_t end = size_t(s.offset()) * s.elementSize() + size_t(s.dim(0)) * entryBytes;
  size_t bytes = size_t(count) * entryBytes;
  if (!s.buffer()->claim(end, end + bytes))
    return Tensor();
  if (bytes > 0)
    std::memcpy(static_cast<char *>(s.buffer()->data()) + end, entries.rawData(), bytes);
  return entriesView(s, 0, s.dim(0) + count);
}

/// A new stack holding s's entries and `count` more from `entries`, with room to grow: its
/// buffer holds twice the entries, so pushes are amortised O(entry).
Tensor appendCopy(const Tensor &s, const Tensor &entries, int64_t count, const Shape &entry) {
  int64_t n = s.dim(0);
  DType dtype = n == 0 ? entries.dtype() : s.dtype();
  int64_t total = n + count;
  Shape capacity{std::max<int64_t>(2 * total, 4)};
  capacity.insert(capacity.end(), entry.begin(), entry.end());
  Tensor room = Tensor::empty(dtype, capacity);
  size_t entryBytes = size_t(numelOf(entry)) * dtypeSize(dtype);
  if (n > 0) {
    Contiguous c(s);
    std::memcpy(room.rawData(), c.of(s).rawData(), size_t(n) * entryBytes);
  }
  if (count > 0)
    std::memcpy(static_cast<char *>(room.rawData()) + size_t(n) * entryBytes, entries.rawData(),
                size_t(count) * entryBytes);
  Tensor out = entriesView(room, 0, total);
  room = Tensor();
  out.buffer()->unclaim(size_t(total) * entryBytes);
  return out;
}

/// Shared by push and extend: s's entries then `count` entries from `entries` (contiguous).
/// The newest version of a stack grows in place; an older one (or a view the stack shares
/// with another value) is copied, so every version keeps its entries (copy on write).
Tensor appendEntries(const Tensor &s, const Tensor &entries, int64_t count, const Shape &entry,
                     const char *op) {
  int64_t n = s.dim(0);
  if (n != 0 && count != 0 &&
      !std::equal(s.shape().begin() + 1, s.shape().end(), entry.begin(), entry.end()))
    throw Error(std::string(op) +
                ": a value saved for the gradient changed shape between loop "
                "iterations (" +
                entries.typeString() + ")");
  Tensor converted; // (entries in s's dtype: no reference taken when they already are)
  if (n != 0 && entries.dtype() != s.dtype())
    converted = entries.to(s.dtype());
  const Tensor &src = converted ? converted : entries;
  Tensor out = appendInPlace(s, src, count);
  if (!out)
    out = appendCopy(s, src, count, n == 0 ? entry : entryShape(s));
  int64_t entryBytes = entryBytesOf(out);
  recordStackPush(entryBytes * count, entryBytes * (n + count), int64_t(out.buffer()->bytes()));
  return out;
}

void stackExtendKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 2, "stack_extend");
  const Tensor &s = tensorArg(ins, 0, "stack_extend");
  Tensor t = tensorArg(ins, 1, "stack_extend").contiguous();
  if (s.rank() != t.rank() || s.rank() < 1)
    throw Error("stack_extend: stacks of different ranks");
  outs.push_back(
      appendEntries(s, t, t.dim(0), Shape(t.shape().begin() + 1, t.shape().end()), "stack_extend"));
}

/// stack_tail(s, n): the top n entries; stack_drop(s, n): the others (views, no copy).
void stackSplit(Inputs ins, Outputs &outs, bool tail, const char *op) {
  expectArity(ins, 2, op);
  Tensor s = tensorArg(ins, 0, op).contiguous();
  int64_t n = intOperand(ins, 1, op);
  check(s.rank() >= 1 && n >= 0 && n <= s.dim(0),
        std::string(op) + ": cannot take " + std::to_string(n) + " entries from a stack of " +
            std::to_string(s.rank() ? s.dim(0) : 0));
  int64_t keep = s.dim(0) - n;
  outs.push_back(tail ? entriesView(s, keep, n) : entriesView(s, 0, keep));
}

void stackTailKernel(Inputs ins, const Attrs &, Outputs &outs) {
  stackSplit(ins, outs, true, "stack_tail");
}
void stackDropKernel(Inputs ins, const Attrs &, Outputs &outs) {
  stackSplit(ins, outs, false, "stack_drop");
}

} // namespace

Tensor stackPush(const Tensor &s, const Tensor &value) {
  Contiguous c(value);
  const Tensor &x = c.of(value);
  if (s.rank() != x.rank() + 1) // (not check(): the message is built only on failure)
    throw Error("stack_push: a stack of rank " + std::to_string(s.rank()) + " cannot hold " +
                x.typeString());
  return appendEntries(s, x, 1, x.shape(), "stack_push");
}

Tensor stackTop(const Tensor &stack) {
  Contiguous c(stack);
  const Tensor &s = c.of(stack);
  check(s.rank() >= 1 && s.dim(0) > 0, "stack_top: the stack is empty");
  // The entry's shape and strides: s's without dim 0 (contiguous), in per-thread scratch so
  // that a gradient loop's every iteration allocates no vector here.
  thread_local Shape entry, strides;
  entry.assign(s.shape().begin() + 1, s.shape().end());
  strides.assign(s.strides().begin() + 1, s.strides().end());
  return s.view(entry, strides, s.offset() + (s.dim(0) - 1) * s.strides()[0]);
}

Tensor stackPop(const Tensor &stack) {
  Contiguous c(stack);
  const Tensor &s = c.of(stack);
  check(s.rank() >= 1 && s.dim(0) > 0, "stack_pop: the stack is empty");
  thread_local Shape shape;
  shape.assign(s.shape().begin(), s.shape().end());
  shape[0] -= 1;
  return s.view(shape, s.strides(), s.offset());
}

void registerStackKernels() {
  registerKernel(OpKind::StackExtend, Device::CPU, stackExtendKernel);
  registerKernel(OpKind::StackTail, Device::CPU, stackTailKernel);
  registerKernel(OpKind::StackDrop, Device::CPU, stackDropKernel);
  registerKernel(OpKind::ZerosLike, Device::CPU, zerosLikeKernel);
  registerKernel(OpKind::StopGradient, Device::CPU, stopGradientKernel);
  registerKernel(OpKind::After, Device::CPU, afterKernel);
  registerKernel(OpKind::StackNew, Device::CPU, stackNewKernel);
  registerKernel(OpKind::StackPush, Device::CPU, stackPushKernel);
  registerKernel(OpKind::StackTop, Device::CPU, stackTopKernel);
  registerKernel(OpKind::StackPop, Device::CPU, stackPopKernel);
}

} // namespace cpu
} // namespace dlm::rt
