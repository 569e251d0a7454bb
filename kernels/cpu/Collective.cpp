//===- kernels/cpu/Collective.cpp - rank, world_size and the collectives ---===//
//
// The kernels of docs/ops.md's collectives, over runtime/Dist.h: at one rank each is the
// identity (its operand itself), under a launcher one MPI call on a contiguous copy.
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/CpuKernels.h"
#include "runtime/Dist.h"

namespace dlm::rt::cpu {

namespace {

void rankKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 0, "rank");
  outs.emplace_back(Tensor::scalarI64(dist::rank()));
}

void worldSizeKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 0, "world_size");
  outs.emplace_back(Tensor::scalarI64(dist::worldSize()));
}

/// allreduce(x){op}: op is "sum", "mean", "max" or "min" (the type rule checked it).
void allreduceKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "allreduce");
  const std::string &name = attrs.getString("op");
  auto kind = dist::reduceKindNamed(name);
  check(kind.has_value(), "allreduce: unknown op '" + name + "'");
  outs.emplace_back(dist::allreduce(tensorArg(ins, 0, "allreduce"), *kind));
}

void broadcastKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "broadcast");
  outs.emplace_back(dist::broadcast(tensorArg(ins, 0, "broadcast"), int(attrs.getInt("root", 0))));
}

void allgatherKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 1, "allgather");
  outs.emplace_back(dist::allgather(tensorArg(ins, 0, "allgather")));
}

void barrierKernel(Inputs ins, const Attrs &, Outputs &) {
  expectArity(ins, 0, "barrier");
  dist::barrier();
}

} // namespace

void registerCollectiveKernels() {
  registerKernel(OpKind::Rank, Device::CPU, rankKernel);
  registerKernel(OpKind::WorldSize, Device::CPU, worldSizeKernel);
  registerKernel(OpKind::AllReduce, Device::CPU, allreduceKernel);
  registerKernel(OpKind::Broadcast, Device::CPU, broadcastKernel);
  registerKernel(OpKind::AllGather, Device::CPU, allgatherKernel);
  registerKernel(OpKind::Barrier, Device::CPU, barrierKernel);
}

} // namespace dlm::rt::cpu
