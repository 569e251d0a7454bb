//===- tests/gpu/PlacementTest.cpp - Placed graphs on the GPU against the CPU ===//
//
// The runtime half of placement (docs/cuda.md "Placement"), without the compiler, so it builds
// in the standalone GPU build (tests/gpu/run.sh). The op table placement consults
// (rt::cudaOps) must be exactly what enableCuda registers: checked everywhere. With a GPU, a
// placed loop — the recurrent state and its matmul/tanh on the GPU, the trip counter and the
// predicate on the CPU, Send/Recv at the boundaries, as the placement pass builds it — runs on
// the graph executor and must match the same graph with every node on the CPU (which is itself
// checked against the kernels called one by one, without a GPU).
//
//===----------------------------------------------------------------------===//
#include "kernels/cuda/CudaKernels.h"
#include "runtime/Devices.h"
#include "runtime/Kernel.h"
#include "runtime/cuda/CudaRuntime.h"
#include "runtime/exec/Executor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

using namespace dlm;
using rt::Attrs;
using rt::Device;
using rt::ExecGraph;
using rt::ExecNodeId;
using rt::ExecPort;
using rt::Tensor;

namespace {

TEST(CudaOps, PlacementTableMatchesTheRegisteredKernels) {
  std::set<std::string> table(rt::cudaOps().begin(), rt::cudaOps().end());
  std::set<std::string> registered(cuda::cudaKernelNames().begin(), cuda::cudaKernelNames().end());
  EXPECT_EQ(table, registered);
}

Tensor randomF32(const rt::Shape &shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-0.5f, 0.5f);
  std::vector<float> v((size_t)rt::numelOf(shape));
  for (float &x : v)
    x = d(gen);
  return Tensor::fromVector(DType::F32, v, shape);
}

/// h = tanh(h @ w) `steps` times, with the tensor work on `device` and the loop control on the
/// CPU; returns the final h on the CPU.
class PlacedLoop {
public:
  PlacedLoop(Device device, const Tensor &h0, const Tensor &w, int64_t steps) : device(device) {
    const char *name = device == Device::CUDA ? "cuda" : "cpu";
    rt::ExecFrameId loop = g.addFrame("loop", 0, 1);
    ExecNodeId hConst = constant(h0), wConst = constant(w);
    ExecNodeId zero = constant(Tensor::scalarI64(0)), limit = constant(Tensor::scalarI64(steps));
    ExecNodeId hIn = transfer(hConst, 0, name), wIn = transfer(wConst, 0, name);
    ExecNodeId enterH = on(g.addEnter({hIn, 0}, loop, false), device);
    ExecNodeId enterW = on(g.addEnter({wIn, 0}, loop, true), device);
    ExecNodeId enterI = g.addEnter({zero, 0}, loop, false);
    ExecNodeId enterN = g.addEnter({limit, 0}, loop, true);
    ExecNodeId mergeH = on(g.addNode("Merge", {{enterH, 0}}, 1, loop), device);
    ExecNodeId mergeI = g.addNode("Merge", {{enterI, 0}}, 1, loop);
    ExecNodeId less = g.addNode("lt", {{mergeI, 0}, {enterN, 0}}, 1, loop);
    ExecNodeId cond = g.addNode("LoopCond", {{less, 0}}, 1, loop);
    ExecNodeId switchH = on(g.addNode("Switch", {{mergeH, 0}, {cond, 0}}, 2, loop), device);
    ExecNodeId switchI = g.addNode("Switch", {{mergeI, 0}, {cond, 0}}, 2, loop);
    ExecNodeId exitH = on(g.addNode("Exit", {{switchH, 0}}, 1, loop), device);
    ExecNodeId bodyH = on(g.addNode("Identity", {{switchH, 1}}, 1, loop), device);
    ExecNodeId bodyI = g.addNode("Identity", {{switchI, 1}}, 1, loop);
    g.addNode("Exit", {{switchI, 0}}, 1, loop);
    ExecNodeId mm = on(g.addNode("matmul", {{bodyH, 0}, {enterW, 0}}, 1, loop), device);
    ExecNodeId th = on(g.addNode("tanh", {{mm, 0}}, 1, loop), device);
    ExecNodeId one = g.addNode("const", {}, 1, loop, Attrs{{"value", int64_t(1)}});
    g.addControlEdge(bodyI, one);
    ExecNodeId inc = g.addNode("add", {{bodyI, 0}, {one, 0}}, 1, loop);
    ExecNodeId nextH = on(g.addNode("NextIteration", {{th, 0}}, 1, loop), device);
    ExecNodeId nextI = g.addNode("NextIteration", {{inc, 0}}, 1, loop);
    g.node(mergeH).inputs.push_back({nextH, 0});
    g.node(mergeI).inputs.push_back({nextI, 0});
    result = transferBack(exitH, name);
  }

  Tensor run() {
    rt::Status s = g.finalize();
    EXPECT_TRUE(s.ok()) << s.message();
    rt::RunOptions options;
    options.fetches = {{result, 0}};
    rt::RunResult r = rt::runGraph(g, options);
    EXPECT_TRUE(r.ok()) << r.status.message();
    return r.fetched.at(0).tensor();
  }

private:
  ExecNodeId constant(const Tensor &t) { return g.addNode("const", {}, 1, 0, Attrs{{"value", t}}); }
  ExecNodeId on(ExecNodeId id, Device d) {
    g.node(id).device = d;
    return id;
  }
  /// Send on the CPU and Recv on `device`, in the root frame (before the loop).
  ExecNodeId transfer(ExecNodeId value, int32_t port, const char *to) {
    ExecNodeId send = g.addNode("Send", {{value, port}}, 1, 0, Attrs{{"to", std::string(to)}});
    return on(g.addNode("Recv", {{send, 0}}, 1, 0, Attrs{{"from", std::string("cpu")}}), device);
  }
  ExecNodeId transferBack(ExecNodeId value, const char *from) {
    ExecNodeId send =
        on(g.addNode("Send", {{value, 0}}, 1, 0, Attrs{{"to", std::string("cpu")}}), device);
    return g.addNode("Recv", {{send, 0}}, 1, 0, Attrs{{"from", std::string(from)}});
  }

  Device device;
  ExecGraph g;
  ExecNodeId result = 0;
};

// The loop graph itself, every node on the CPU (runs everywhere): 7 steps of tanh(h @ w)
// computed kernel by kernel.
TEST(CudaPlacement, TheLoopGraphIsRightOnTheCpu) {
  Tensor h0 = randomF32({4, 16}, 1), w = randomF32({16, 16}, 2);
  Tensor want = h0;
  for (int i = 0; i < 7; ++i)
    want = rt::run("tanh", {rt::run("matmul", {want, w})});
  Tensor got = PlacedLoop(Device::CPU, h0, w, 7).run();
  ASSERT_EQ(want.typeString(), got.typeString());
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_EQ(got.data<float>()[i], want.data<float>()[i]) << "element " << i;
}

TEST(CudaPlacement, LoopSpanningDevicesMatchesTheCpu) {
  if (!cuda::enableCuda())
    GTEST_SKIP() << "skipped: no GPU (" << rt::cuda::discover().reason << ")";
  uint32_t seed = std::random_device{}();
  Tensor h0 = randomF32({4, 16}, seed), w = randomF32({16, 16}, seed + 1);
  Tensor want = PlacedLoop(Device::CPU, h0, w, 7).run();
  Tensor got = PlacedLoop(Device::CUDA, h0, w, 7).run();
  ASSERT_EQ(got.device(), Device::CPU) << "the result comes back through Send/Recv";
  ASSERT_EQ(want.typeString(), got.typeString());
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-4)
        << "element " << i << " seed " << seed;
}

} // namespace
