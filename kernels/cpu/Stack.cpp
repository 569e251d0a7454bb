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
//===----------------------------------------------------------------------===//
#include "kernels/cpu/CpuKernels.h"
#include "runtime/StackStats.h"

#include <atomic>
#include <cstring>

namespace dlm::rt {
namespace {
std::atomic<int64_t> pushes{0}, bytesPushed{0}, peakBytes{0};
} // namespace

StackStats stackStats() { return {pushes.load(), bytesPushed.load(), peakBytes.load()}; }

void resetStackStats() {
  pushes = 0;
  bytesPushed = 0;
  peakBytes = 0;
}

void recordStackPush(int64_t entryBytes, int64_t stackBytes) {
  pushes.fetch_add(1);
  bytesPushed.fetch_add(entryBytes);
  int64_t seen = peakBytes.load();
  while (stackBytes > seen && !peakBytes.compare_exchange_weak(seen, stackBytes)) {
  }
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

void stackNewKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 0, "stack_new");
  Shape shape(size_t(attrs.getInt("rank", 0)) + 1, 0);
  outs.push_back(Tensor::zeros(attrs.getDType("dtype", DType::F32), shape));
}

void stackPushKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 2, "stack_push");
  const Tensor &s = tensorArg(ins, 0, "stack_push");
  Tensor x = tensorArg(ins, 1, "stack_push").contiguous();
  check(s.rank() == x.rank() + 1, "stack_push: a stack of rank " + std::to_string(s.rank()) +
                                      " cannot hold " + x.typeString());
  outs.push_back(appendEntries(s, x, 1, x.shape(), "stack_push"));
}

void stackTopKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 1, "stack_top");
  Tensor s = tensorArg(ins, 0, "stack_top").contiguous();
  check(s.rank() >= 1 && s.dim(0) > 0, "stack_top: the stack is empty");
  Shape entry(s.shape().begin() + 1, s.shape().end());
  size_t entryBytes = size_t(numelOf(entry)) * s.elementSize();
  outs.push_back(Tensor::fromData(
      s.dtype(), entry, static_cast<const char *>(s.rawData()) + size_t(s.dim(0) - 1) * entryBytes));
}

void stackPopKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 1, "stack_pop");
  Tensor s = tensorArg(ins, 0, "stack_pop").contiguous();
  check(s.rank() >= 1 && s.dim(0) > 0, "stack_pop: the stack is empty");
  Shape shape = s.shape();
  shape[0] -= 1;
  outs.push_back(Tensor::fromData(s.dtype(), shape, s.rawData()));
}

/// Shared by push and extend: s's entries then `count` entries from `entries` (contiguous).
Tensor appendEntries(const Tensor &s, const Tensor &entries, int64_t count, const Shape &entry,
                     const char *op) {
  int64_t n = s.dim(0);
  Shape old(s.shape().begin() + 1, s.shape().end());
  check(n == 0 || count == 0 || old == entry,
        std::string(op) + ": a value saved for the gradient changed shape between loop "
                          "iterations (" + entries.typeString() + ")");
  DType dtype = n == 0 ? entries.dtype() : s.dtype();
  Shape shape{n + count};
  const Shape &kept = n == 0 ? entry : old;
  shape.insert(shape.end(), kept.begin(), kept.end());
  Tensor out = Tensor::empty(dtype, shape);
  size_t entryBytes = size_t(numelOf(kept)) * dtypeSize(dtype);
  if (n > 0) {
    Tensor c = s.contiguous();
    std::memcpy(out.rawData(), c.rawData(), size_t(n) * entryBytes);
  }
  if (count > 0)
    std::memcpy(static_cast<char *>(out.rawData()) + size_t(n) * entryBytes, entries.rawData(),
                size_t(count) * entryBytes);
  recordStackPush(int64_t(entryBytes) * count, int64_t(entryBytes) * (n + count));
  return out;
}

void stackExtendKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 2, "stack_extend");
  const Tensor &s = tensorArg(ins, 0, "stack_extend");
  Tensor t = tensorArg(ins, 1, "stack_extend").contiguous();
  check(s.rank() == t.rank() && s.rank() >= 1, "stack_extend: stacks of different ranks");
  outs.push_back(appendEntries(s, t, t.dim(0), Shape(t.shape().begin() + 1, t.shape().end()),
                               "stack_extend"));
}

/// stack_tail(s, n): the top n entries; stack_drop(s, n): the others.
void stackSplit(Inputs ins, Outputs &outs, bool tail, const char *op) {
  expectArity(ins, 2, op);
  Tensor s = tensorArg(ins, 0, op).contiguous();
  int64_t n = intOperand(ins, 1, op);
  check(s.rank() >= 1 && n >= 0 && n <= s.dim(0),
        std::string(op) + ": cannot take " + std::to_string(n) + " entries from a stack of " +
            std::to_string(s.rank() ? s.dim(0) : 0));
  Shape shape = s.shape();
  size_t entryBytes = size_t(numelOf(Shape(shape.begin() + 1, shape.end()))) * s.elementSize();
  int64_t keep = s.dim(0) - n;
  shape[0] = tail ? n : keep;
  const char *from = static_cast<const char *>(s.rawData()) + (tail ? size_t(keep) * entryBytes : 0);
  outs.push_back(Tensor::fromData(s.dtype(), shape, from));
}

void stackTailKernel(Inputs ins, const Attrs &, Outputs &outs) {
  stackSplit(ins, outs, true, "stack_tail");
}
void stackDropKernel(Inputs ins, const Attrs &, Outputs &outs) {
  stackSplit(ins, outs, false, "stack_drop");
}

} // namespace

void registerStackKernels() {
  registerKernel("stack_extend", Device::CPU, stackExtendKernel);
  registerKernel("stack_tail", Device::CPU, stackTailKernel);
  registerKernel("stack_drop", Device::CPU, stackDropKernel);
  registerKernel("zeros_like", Device::CPU, zerosLikeKernel);
  registerKernel("stop_gradient", Device::CPU, stopGradientKernel);
  registerKernel("stack_new", Device::CPU, stackNewKernel);
  registerKernel("stack_push", Device::CPU, stackPushKernel);
  registerKernel("stack_top", Device::CPU, stackTopKernel);
  registerKernel("stack_pop", Device::CPU, stackPopKernel);
}

} // namespace cpu
} // namespace dlm::rt
