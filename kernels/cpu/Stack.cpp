//===- kernels/cpu/Stack.cpp - Autodiff's loop stacks and zeros_like -------===//
//
// A stack is an ordinary tensor whose dim 0 counts the entries (docs/autodiff.md "Stacks"):
// `stack_new{dtype, rank}` is empty ([0, 0, ...]), `stack_push(s, x)` returns s with x appended
// (the entry shape is fixed by the first push), `stack_top(s)` is the last entry and
// `stack_pop(s)` s without it (a view). Values, not state: the stacks are differentiable graph
// values like TF2's TensorLists, so a gradient graph can be differentiated again.
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

void zerosLikeKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 1, "zeros_like");
  const Tensor &x = tensorArg(ins, 0, "zeros_like");
  outs.push_back(Tensor::zeros(x.dtype(), x.shape()));
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
  int64_t n = s.dim(0);
  Shape entry(s.shape().begin() + 1, s.shape().end());
  check(n == 0 || entry == x.shape(),
        "stack_push: a value saved for the gradient changed shape between loop iterations (" +
            x.typeString() + ")");
  check(n == 0 || s.dtype() == x.dtype(), "stack_push: dtype changed between iterations");
  Shape shape{n + 1};
  shape.insert(shape.end(), x.shape().begin(), x.shape().end());
  Tensor out = Tensor::empty(n == 0 ? x.dtype() : s.dtype(), shape);
  size_t entryBytes = size_t(x.numel()) * x.elementSize();
  if (n > 0) {
    Tensor old = s.contiguous();
    std::memcpy(out.rawData(), old.rawData(), size_t(n) * entryBytes);
  }
  std::memcpy(static_cast<char *>(out.rawData()) + size_t(n) * entryBytes, x.rawData(), entryBytes);
  recordStackPush(int64_t(entryBytes), int64_t(entryBytes) * (n + 1));
  outs.push_back(std::move(out));
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

} // namespace

void registerStackKernels() {
  registerKernel("zeros_like", Device::CPU, zerosLikeKernel);
  registerKernel("stack_new", Device::CPU, stackNewKernel);
  registerKernel("stack_push", Device::CPU, stackPushKernel);
  registerKernel("stack_top", Device::CPU, stackTopKernel);
  registerKernel("stack_pop", Device::CPU, stackPopKernel);
}

} // namespace cpu
} // namespace dlm::rt
