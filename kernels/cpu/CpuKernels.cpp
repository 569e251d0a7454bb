//===- kernels/cpu/CpuKernels.cpp - Registration and shared helpers ------===//
#include "kernels/cpu/CpuKernels.h"
#include "runtime/CpuDispatch.h"
#include "runtime/Devices.h"
#include "runtime/Promotion.h"
#include "runtime/Threads.h"

namespace dlm::rt::cpu {

namespace {

/// The registration of the two contracted kernel groups (FmaVariant.h).
struct ContractedGroups {
  void (*elementwise)();
  void (*nn)();
};

/// The portable runtime's FMA copies when the process runs the FMA code paths, else the plain
/// groups.
ContractedGroups contractedGroups() {
#ifdef DLM_HAS_FMA_VARIANT
  if (useFmaCodePaths())
    return {fma::registerElementwiseKernels, fma::registerNNKernels};
#endif
  return {registerElementwiseKernels, registerNNKernels};
}

} // namespace

void registerCpuKernels() {
  // Until an engine declares inter-op parallelism, GEMMs get every core.
  setInterOpThreads(1);
  ContractedGroups contracted = contractedGroups();
  contracted.elementwise();
  registerReduceKernels();
  registerLinalgKernels();
  registerShapeKernels();
  contracted.nn();
  registerCreateKernels();
  registerIOKernels();
  registerCollectiveKernels();
  registerStackKernels();
  registerFusedKernels();
  registerTransferKernels();
}

void expectArity(Inputs ins, size_t n, const char *op, bool variadic) {
  bool ok = variadic ? ins.size() >= n : ins.size() == n;
  if (!ok)
    throw Error(std::string("'") + op + "' expects " + (variadic ? "at least " : "") +
                std::to_string(n) + " operand" + (n == 1 ? "" : "s") + ", got " +
                std::to_string(ins.size()));
}

const Tensor &tensorArg(Inputs ins, size_t i, const char *op) {
  // Every kernel call reads its operands through here: build a message only on failure.
  if (i >= ins.size())
    throw Error(std::string("'") + op + "': missing operand " + std::to_string(i));
  if (!ins[i].isTensor())
    throw Error(std::string("'") + op + "': operand " + std::to_string(i) +
                " must be a tensor, got a string");
  const Tensor &t = ins[i].tensor();
  if (t.device() != Device::CPU)
    throw Error(std::string("'") + op + "': CPU kernel got a tensor on " + deviceName(t.device()));
  return t;
}

namespace {
/// The broadcast of a and b into `out`; false when they do not broadcast.
bool broadcastInto(const Shape &a, const Shape &b, Shape &out) {
  size_t r = std::max(a.size(), b.size());
  out.resize(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}
} // namespace

Shape broadcastShapes(const Shape &a, const Shape &b, const std::string &what) {
  Shape out;
  if (!broadcastInto(a, b, out))
    throw Error(what);
  return out;
}

Shape broadcastShapes(const Tensor &a, const Tensor &b) {
  // Every elementwise kernel call comes here: the message is built only on failure.
  Shape out;
  if (!broadcastInto(a.shape(), b.shape(), out))
    throw Error("cannot broadcast " + a.typeString() + " with " + b.typeString());
  return out;
}

DType resultType(const Tensor &a, const Tensor &b) {
  return promoteElementwise({a.dtype(), runtimeOperandRank(a.dtype(), a.rank())},
                            {b.dtype(), runtimeOperandRank(b.dtype(), b.rank())});
}

bool readsAsScalar(const Tensor &t) {
  return runtimeOperandRank(t.dtype(), t.rank()) == OperandRank::Scalar;
}

DType floatResultType(DType computed, bool allScalars) {
  if (isFloat(computed))
    return computed;
  return allScalars ? DType::F64 : DType::F32;
}

int64_t intOperand(Inputs ins, size_t i, const char *op) {
  const Tensor &d = tensorArg(ins, i, op);
  check(d.numel() == 1 && !isFloat(d.dtype()), std::string("'") + op + "': operand " +
                                                   std::to_string(i) + " must be an int, got " +
                                                   d.typeString());
  return d.itemI64();
}

Shape shapeFromAttrOrInputs(const Attrs &attrs, const char *name, Inputs ins, size_t first) {
  if (attrs.has(name)) {
    Shape shape = attrs.getInts(name);
    size_t next = first;
    for (int64_t &d : shape) {
      if (d != kDynamicDim)
        continue;
      check(next < ins.size(),
            std::string("'") + name + "': missing operand for a symbolic dimension");
      d = intOperand(ins, next++, name);
    }
    return shape;
  }
  Shape shape;
  if (ins.size() == first + 1 && ins[first].isTensor() && ins[first].tensor().rank() == 1) {
    Tensor s = ins[first].tensor();
    check(!isFloat(s.dtype()), "shape operand must be an integer tensor");
    for (int64_t i = 0; i < s.numel(); ++i)
      shape.push_back(s.getI64({i}));
    return shape;
  }
  for (size_t i = first; i < ins.size(); ++i)
    shape.push_back(intOperand(ins, i, name));
  return shape;
}

} // namespace dlm::rt::cpu
