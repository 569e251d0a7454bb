//===- kernels/cpu/Fused.cpp - The `fused` kernel: a body op by op ---------===//
//
// fused(x0, x1, ...) {body} (runtime/FusedBody.h): the statements run in order, each with the
// ordinary kernel of its op, so results are bit for bit those of the unfused ops. The graph
// executor runs every `fused` node this way; generated code calls it for a body it does not
// emit as an inline loop (an op or dtype without inline code, such as arithmetic on bools, or
// operands that broadcast along symbolic dimensions), in the JIT and in AOT executables alike.
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/CpuKernels.h"
#include "runtime/FusedBody.h"

namespace dlm::rt::cpu {
namespace {

void fusedKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  const std::string &body = attrs.getString("body");
  auto statements = parseFusedStatements(body, ins.size());
  if (!statements || statements->empty())
    throw Error("fused: malformed body '" + body + "'");
  std::vector<Value> values(ins.begin(), ins.end());
  for (const FusedStatement &st : *statements) {
    std::vector<Value> args;
    for (unsigned v : st.operands)
      args.push_back(values[v]);
    values.push_back(run(opName(st.op), std::move(args)));
  }
  outs.push_back(values.back());
}

} // namespace

void registerFusedKernels() { registerKernel(OpKind::Fused, Device::CPU, fusedKernel); }

} // namespace dlm::rt::cpu
