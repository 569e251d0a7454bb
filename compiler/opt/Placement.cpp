//===- compiler/opt/Placement.cpp - Device placement and Send/Recv partitioning ===//
//
// Assigns every node a device — the target of `--device` (PassContext::device: "cuda", or the
// testing device "fake") where that device has a kernel for the node, else "cpu" — and makes
// every data edge between devices explicit as a Send/Recv pair, so the graph is partitioned the
// way TensorFlow's placer and graph partitioner split a graph across devices (docs/cuda.md
// "Placement"). Which device runs what is the runtime's table (runtime/Devices.h deviceRuns).
//
// Algorithm:
//   1. Compute nodes: host-only nodes (side effects — print, save, load, assert, the dataset
//      readers, seed —, nodes without results) and nodes whose results include a host value
//      (a 0-d tensor or str: scalars live in host memory on every device) are on the CPU; the
//      others on the target when deviceRuns() says it has the kernel, else on the CPU.
//      Then the copy-cost rule (unless PassContext::placementCost is off): a node on the
//      target whose tensor neighbours — the producers of its tensor operands and the users of
//      its tensor results — are all compute nodes on the CPU goes back to the CPU when the
//      copies it would need cost more than the CPU time it saves (CostModel below; repeated
//      until nothing moves, so a short chain between CPU nodes stays on the CPU piece by piece).
//   2. Pass-through nodes follow their data, found by walking back through other pass-through
//      nodes: Switch, Exit, Identity, and a conditional Merge (first input with a device) take
//      their input's device. A loop's Merge, its Enters and NextIterations are one group (nothing
//      may stand between them) placed with the value the body feeds back (a NextIteration's
//      input), else with the loop's initial value. A constant Enter goes where most of its users
//      with a device from step 1 are, so a loop invariant crosses once, before the loop, rather
//      than in every iteration.
//   3. Every data edge whose ends are on different devices and carries a tensor of rank >= 1
//      gets `Send(x) {to = D}` on the producer's device and `Recv {from = S}` on the consumer's,
//      both in the frame the value is produced in (for an Enter's input: the parent frame; inside
//      a loop: per iteration). One pair per value and destination device; every consumer of the
//      value on that device reads the same Recv.
//
// Control edges may join nodes on different devices: they carry no value, and the executor
// runs every partition of the graph. A graph that already has devices is left alone.
//
// Requires: a verified graph  Preserves: frames, existing node ids (new nodes are appended)
// Invalidates: nothing — but run it last: later passes do not place the nodes they add, which
// the verifier reports.
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/Pass.h"

#include "compiler/ir/FusedOp.h"
#include "compiler/ir/OpRegistry.h"
#include "runtime/Devices.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace dlm::opt {

using namespace graph;

namespace {

bool isHostValue(const Type &t) { return !t.isTensor() || t.rank() == 0; }

/// The copy-cost rule's model (docs/cuda.md "Copy cost"): a transfer costs a fixed latency
/// plus its bytes over the host link; an op on the GPU saves its CPU time, its arithmetic
/// (flops) at the CPU kernels' rate, and costs nothing there. Values are assumptions for a
/// PCIe 4 x16 host link with synchronous copies and a few AVX-512 cores, not measurements.
struct CostModel {
  static constexpr double kTransferNs = 10'000; ///< per Send/Recv pair: launch, sync, driver
  static constexpr double kBytesPerNs = 12;     ///< ~12 GB/s pageable host <-> device
  static constexpr double kCpuFlopsPerNs = 16;  ///< what the CPU kernels sustain
  /// Flops per element of an elementwise op (transcendental ones are polynomial chains).
  static double perElement(OpKind op) { return opHas(op, opflag::Transcendental) ? 10 : 1; }
};

/// The elements of a tensor type, nullopt when a dim is only known at run time.
std::optional<double> elements(const Type &t) {
  double n = 1;
  for (const Dim &d : t.shape()) {
    if (!d.isStatic())
      return std::nullopt;
    n *= (double)d.size();
  }
  return n;
}

bool isPassThrough(const Node &n) {
  return n.op == OpKind::Switch || n.op == OpKind::Merge || n.op == OpKind::Enter ||
         n.op == OpKind::Exit || n.op == OpKind::NextIteration || n.op == OpKind::Identity;
}

rt::TensorSig signature(const Type &t) {
  rt::TensorSig sig;
  sig.isTensor = t.isTensor();
  if (!sig.isTensor)
    return sig;
  sig.dtype = t.dtype();
  for (const Dim &d : t.shape())
    sig.dims.push_back(d.isStatic() ? d.size() : -1);
  return sig;
}

class Placer {
public:
  Placer(Graph &g, PassContext &ctx) : g(g), ctx(ctx), device(g.numNodes()) {}

  void run() {
    uses = g.dataUses();
    groupLoops();
    for (const Node &n : g.nodes())
      if (!isPassThrough(n) || std::any_of(n.results.begin(), n.results.end(), isHostValue))
        device[n.id] = computeDevice(n);
    if (ctx.placementCost)
      keepIsolatedSmallOpsOnCpu();
    for (const Node &n : g.nodes())
      if (isConstantEnter(n) && device[n.id].empty())
        device[n.id] = constantEnterDevice(n);
    for (const Node &n : g.nodes()) {
      std::set<NodeId> visiting;
      if (device[n.id].empty())
        device[n.id] = follow(n.id, visiting);
      if (device[n.id].empty())
        device[n.id] = rt::kCpuDevice;
    }
    for (const Node &n : g.nodes()) {
      g.node(n.id).device = device[n.id];
      ctx.count("nodes-on-" + device[n.id]);
    }
    insertTransfers();
  }

private:
  // --- step 1 ------------------------------------------------------------------------------
  std::string computeDevice(const Node &n) const {
    if (n.info().sideEffects || n.results.empty() ||
        std::any_of(n.results.begin(), n.results.end(), isHostValue))
      return std::string(rt::kCpuDevice);
    std::vector<rt::TensorSig> operands, results;
    for (ValueRef v : n.inputs)
      operands.push_back(signature(g.typeOf(v)));
    for (const Type &t : n.results)
      results.push_back(signature(t));
    bool runs = rt::deviceRuns(ctx.device, opName(n.op), operands, results) &&
                (n.op != OpKind::Fused || fusedBodyRuns(n));
    return std::string(runs ? ctx.device : rt::kCpuDevice);
  }

  /// A `fused` body runs on the GPU when every statement is an op the generated kernels have
  /// (`CudaFused`: no C library calls) and none computes in f64.
  bool fusedBodyRuns(const Node &n) const {
    const std::string *text = n.attrAs<std::string>("body");
    std::optional<std::vector<FusedStatement>> body =
        text ? parseFusedBody(*text, n.inputs.size()) : std::nullopt;
    if (!body)
      return false;
    return std::all_of(body->begin(), body->end(), [&](const FusedStatement &st) {
      return st.dtype != DType::F64 && opHas(st.op, opflag::CudaFused);
    });
  }

  /// The copy-cost rule (file comment): until nothing changes, a target node whose tensor
  /// neighbours are all on the CPU returns there when its copies cost more than it saves.
  void keepIsolatedSmallOpsOnCpu() {
    for (bool moved = true; moved;) {
      moved = false;
      for (const Node &n : g.nodes()) {
        if (device[n.id] != ctx.device || device[n.id] == rt::kCpuDevice || isPassThrough(n))
          continue;
        std::optional<double> copyNs = isolatedCopyNs(n), savedNs = cpuNs(n);
        if (copyNs && savedNs && *copyNs > *savedNs) {
          device[n.id] = rt::kCpuDevice;
          ctx.count("kept-on-cpu-by-copy-cost");
          moved = true;
        }
      }
    }
  }

  /// What the transfers around `n` would cost with it on the target: one per tensor operand
  /// value and one per tensor result with users. Nullopt unless every tensor neighbour is a
  /// node already on the CPU (not a pass-through still unplaced) and every size is static.
  std::optional<double> isolatedCopyNs(const Node &n) const {
    double ns = 0;
    std::set<std::pair<NodeId, uint32_t>> seen;
    auto transfer = [&](const Type &t) -> bool {
      std::optional<double> count = elements(t);
      if (!count)
        return false;
      ns += CostModel::kTransferNs + *count * (double)dtypeSize(t.dtype()) / CostModel::kBytesPerNs;
      return true;
    };
    for (ValueRef v : n.inputs) {
      const Type &t = g.typeOf(v);
      if (isHostValue(t) || !seen.insert({v.node, v.port}).second)
        continue;
      if (device[v.node] != rt::kCpuDevice || !transfer(t))
        return std::nullopt;
    }
    std::set<uint32_t> sent;
    for (const Use &use : uses[n.id]) {
      uint32_t port = g.node(use.user).inputs[use.operand].port;
      const Type &t = n.results[port];
      if (isHostValue(t))
        continue;
      if (device[use.user] != rt::kCpuDevice)
        return std::nullopt;
      if (sent.insert(port).second && !transfer(t))
        return std::nullopt;
    }
    return ns;
  }

  /// The CPU time `n` would take (its flops at the model's rate); nullopt for a dynamic size.
  std::optional<double> cpuNs(const Node &n) const {
    std::optional<double> out = elements(n.results[0]);
    std::optional<double> in = n.inputs.empty() ? out : elements(g.typeOf(n.inputs[0]));
    if (!out || !in)
      return std::nullopt;
    double flops;
    if (n.op == OpKind::Matmul) {
      const Type &a = g.typeOf(n.inputs[0]);
      const Dim &k = a.shape().back();
      if (!k.isStatic())
        return std::nullopt;
      flops = 2 * *out * (double)k.size();
    } else if (n.op == OpKind::Fused) {
      const std::string *text = n.attrAs<std::string>("body");
      std::optional<std::vector<FusedStatement>> body =
          text ? parseFusedBody(*text, n.inputs.size()) : std::nullopt;
      if (!body)
        return std::nullopt;
      double perElement = 0;
      for (const FusedStatement &st : *body)
        perElement += CostModel::perElement(st.op);
      flops = *out * perElement;
    } else if (n.op == OpKind::Transpose) {
      flops = 0; // a view
    } else if (n.op == OpKind::Softmax || n.op == OpKind::LogSoftmax ||
               n.op == OpKind::CrossEntropy) {
      flops = 10 * *in;
    } else if (n.info().elementwise) {
      flops = *out * CostModel::perElement(n.op);
    } else {
      flops = std::max(*in, *out); // reductions, argmax: one pass over the operand
    }
    return flops / CostModel::kCpuFlopsPerNs;
  }

  // --- step 2 ------------------------------------------------------------------------------
  /// Unites each loop Merge with its Enter and NextIteration inputs.
  void groupLoops() {
    for (const Node &n : g.nodes()) {
      if (n.op != OpKind::Merge)
        continue;
      bool isLoop = std::any_of(n.inputs.begin(), n.inputs.end(), [&](ValueRef v) {
        return g.node(v.node).op == OpKind::NextIteration;
      });
      if (!isLoop)
        continue;
      loopGroup[n.id] = n.id;
      for (ValueRef v : n.inputs)
        loopGroup[v.node] = n.id;
    }
  }

  bool isConstantEnter(const Node &n) const {
    const bool *constant = n.attrAs<bool>("is_constant");
    return n.op == OpKind::Enter && constant && *constant && !loopGroup.count(n.id);
  }

  /// The device most users placed in step 1 are on (ties: the first in user order), else the
  /// input's.
  std::string constantEnterDevice(const Node &n) {
    std::map<std::string, int> votes;
    std::string best;
    for (const Use &use : uses[n.id]) {
      const std::string &d = device[use.user];
      if (!isPassThrough(g.node(use.user)) && !d.empty() && ++votes[d] > votes[best])
        best = d;
    }
    if (!best.empty())
      return best;
    std::set<NodeId> visiting;
    return follow(n.inputs[0].node, visiting);
  }

  /// The device of node `id`, following pass-through nodes back to one with a device; "" when
  /// the walk only finds a cycle of pass-through nodes.
  std::string follow(NodeId id, std::set<NodeId> &visiting) {
    if (!device[id].empty())
      return device[id];
    if (!visiting.insert(id).second)
      return "";
    const Node &n = g.node(id);
    std::string found;
    if (auto it = loopGroup.find(id); it != loopGroup.end())
      found = loopDevice(it->second, visiting);
    else if (n.op == OpKind::Merge)
      for (size_t i = 0; i < n.inputs.size() && found.empty(); ++i)
        found = follow(n.inputs[i].node, visiting);
    else if (!n.inputs.empty())
      found = follow(n.inputs[0].node, visiting);
    visiting.erase(id);
    if (!found.empty())
      device[id] = found;
    return found;
  }

  /// Places the loop group of `merge` with its fed-back value, else its initial value.
  std::string loopDevice(NodeId merge, std::set<NodeId> &visiting) {
    std::string found;
    for (OpKind kind : {OpKind::NextIteration, OpKind::Enter})
      for (ValueRef v : g.node(merge).inputs)
        if (found.empty() && g.node(v.node).op == kind)
          found = follow(g.node(v.node).inputs[0].node, visiting);
    if (found.empty())
      found = rt::kCpuDevice;
    for (const auto &[member, group] : loopGroup)
      if (group == merge)
        device[member] = found;
    return found;
  }

  // --- step 3 ------------------------------------------------------------------------------
  FrameId producedIn(const Node &producer) const {
    if (producer.op == OpKind::Exit && producer.frame != kRootFrame)
      return g.frame(producer.frame).parent;
    return producer.frame;
  }

  void insertTransfers() {
    std::map<std::tuple<NodeId, uint32_t, std::string>, NodeId> recvs;
    size_t original = g.numNodes();
    for (NodeId u = 0; u < original; ++u) {
      for (size_t i = 0; i < g.node(u).inputs.size(); ++i) {
        ValueRef v = g.node(u).inputs[i];
        std::string to = g.node(u).device; // a copy: addTransfer grows the node list
        if (g.node(v.node).device == to || isHostValue(g.typeOf(v)))
          continue;
        auto [it, fresh] = recvs.try_emplace({v.node, v.port, to}, 0);
        if (fresh)
          it->second = addTransfer(v, to);
        g.node(u).inputs[i] = Graph::value(it->second);
      }
    }
  }

  /// Adds Send(v) on v's device and a Recv of it on `to`; returns the Recv.
  NodeId addTransfer(ValueRef v, const std::string &to) {
    const Node &producer = g.node(v.node);
    std::string from = producer.device;
    FrameId frame = producedIn(producer);
    Location loc = producer.loc;
    Type type = g.typeOf(v);
    Node &send = g.addNode(OpKind::Send, {v}, {type}, frame, loc);
    send.attrs["to"] = to;
    send.device = from;
    NodeId sendId = send.id;
    Node &recv = g.addNode(OpKind::Recv, {Graph::value(sendId)}, {type}, frame, loc);
    recv.attrs["from"] = from;
    recv.device = to;
    ctx.count("transfers");
    return recv.id;
  }

  Graph &g;
  PassContext &ctx;
  std::vector<std::string> device;
  std::vector<std::vector<Use>> uses;
  /// Loop Merge, Enter and NextIteration nodes -> the Merge of their loop.
  std::map<NodeId, NodeId> loopGroup;
};

} // namespace

PassResult runPlacement(Graph &g, PassContext &ctx) {
  for (const Node &n : g.nodes())
    if (!n.device.empty())
      return PassResult::Unchanged;
  if (g.numNodes() == 0)
    return PassResult::Unchanged;
  Placer(g, ctx).run();
  return PassResult::Changed;
}

} // namespace dlm::opt
