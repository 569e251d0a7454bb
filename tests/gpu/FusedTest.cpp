//===- tests/gpu/FusedTest.cpp - Generated PTX kernels of fused bodies -----===//
//
// NvptxFused.* run everywhere (no GPU, no CUDA toolkit): every op placement lets into a GPU
// `fused` body (rt::cudaFusedOps) compiles to a PTX kernel without calls, and an op that needs
// the C library has no GPU form. In a CUDA build, CudaFused.* compare the CUDA backend's
// `fused` kernel (the PTX loaded with the driver API) with the CPU kernel on fresh random
// inputs — broadcasting, 0-d operands, bool intermediates — and skip visibly without a GPU.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Nvptx.h"
#include "compiler/ir/FusedOp.h"
#include "runtime/Devices.h"

#include <gtest/gtest.h>

#ifdef DLM_HAVE_CUDA
#include "tests/gpu/GpuCompare.h"
#endif

#include <algorithm>
#include <set>

using namespace dlm;

namespace {

/// A one-statement body `%N = op(%0, ...) : dt` over `arity` inputs of dtype `in`.
std::vector<FusedStatement> oneOp(const std::string &op, size_t arity, DType dt) {
  FusedStatement st;
  st.op = *opKindNamed(op);
  for (unsigned i = 0; i < arity; ++i)
    st.operands.push_back(i);
  st.dtype = dt;
  return {st};
}

size_t arityOf(const std::string &op) {
  static const std::set<std::string> unary = {
      "neg", "abs", "relu", "exp", "tanh", "sigmoid", "sqrt", "logical_not", "stop_gradient"};
  if (unary.count(op))
    return 1;
  return op == "clip" || op == "where" ? 3 : 2;
}

bool isPredicate(const std::string &op) {
  return op == "eq" || op == "ne" || op == "lt" || op == "le" || op == "gt" || op == "ge" ||
         op.starts_with("logical_");
}

} // namespace

TEST(NvptxFused, EveryGpuFusedOpCompiles) {
  for (std::string_view name : rt::cudaFusedOps()) {
    std::string op(name);
    size_t arity = arityOf(op);
    DType in = op.starts_with("logical_") ? DType::Bool : DType::F32;
    DType out = isPredicate(op) ? DType::Bool : DType::F32;
    std::vector<rt::FusedOperand> operands(arity, rt::FusedOperand{in, true});
    if (op == "where")
      operands[0].dtype = DType::Bool;
    operands.back().tensor = false; // the last operand as a 0-d value passed by value
    std::string error;
    std::optional<std::string> ptx =
        codegen::compileFusedPtx(oneOp(op, arity, out), operands, 2, "k", error);
    ASSERT_TRUE(ptx.has_value()) << op << ": " << error;
    EXPECT_NE(ptx->find(".visible .entry k("), std::string::npos) << op;
    EXPECT_NE(ptx->find(".target sm_90"), std::string::npos) << op;
    EXPECT_EQ(ptx->find("call"), std::string::npos) << op << " calls a function:\n" << *ptx;
  }
}

TEST(NvptxFused, HostFunctionOpsHaveNoGpuForm) {
  std::string error;
  rt::FusedOperand x{DType::F32, true};
  EXPECT_FALSE(codegen::compileFusedPtx(oneOp("log", 1, DType::F32), {x}, 1, "k", error));
  EXPECT_EQ(error, "'dlm_scalar_Log_f32' (a host function) is not available on the GPU");
  rt::FusedOperand x64{DType::F64, true};
  EXPECT_FALSE(codegen::compileFusedPtx(oneOp("exp", 1, DType::F64), {x64}, 1, "k", error));
  EXPECT_EQ(error, "'exp' (a host function) is not available on the GPU");
  // Neither is in the list placement consults.
  auto ops = rt::cudaFusedOps();
  EXPECT_EQ(std::find(ops.begin(), ops.end(), "log"), ops.end());
  EXPECT_FALSE(codegen::compileFusedPtx(oneOp("tanh", 1, DType::F32), {x}, 9, "k", error));
  EXPECT_EQ(error, "rank 9 exceeds 8");
}

TEST(NvptxFused, TheRuntimeHookCompilesBodyText) {
  codegen::installPtxCompiler();
  rt::FusedPtxCompiler compile = rt::fusedPtxCompiler();
  ASSERT_NE(compile, nullptr);
  std::vector<rt::FusedOperand> operands = {{DType::F32, true}, {DType::F64, false}};
  std::string ptx, entry, error;
  ASSERT_TRUE(
      compile("%2 = mul(%0, %1) : f32; %3 = tanh(%2) : f32", operands, 3, ptx, entry, error))
      << error;
  EXPECT_NE(ptx.find(".visible .entry " + entry + "("), std::string::npos);
  EXPECT_FALSE(compile("%2 = mul(%0 : f32", operands, 3, ptx, entry, error));
  EXPECT_EQ(error, "malformed fused body '%2 = mul(%0 : f32'");
}

#ifdef DLM_HAVE_CUDA
namespace {

using gputest::compare;
using gputest::randomF32;
using rt::Attrs;
using rt::Shape;
using rt::Tensor;

Attrs bodyAttr(const std::string &body) {
  Attrs a;
  a.set("body", body);
  return a;
}

} // namespace

TEST(CudaFused, MatchesTheCpu) {
  REQUIRE_GPU();
  codegen::installPtxCompiler();
  SEEDED_GENERATOR(gen);
  Tensor x = randomF32({37, 129}, gen), y = randomF32({37, 129}, gen), row = randomF32({129}, gen),
         col = randomF32({37, 1}, gen), s = Tensor::scalar(DType::F64, 0.75);
  // A same-shape transcendental chain (FastMath exp/tanh/sigmoid as on the CPU).
  compare("fused", {x, y},
          bodyAttr("%2 = tanh(%0) : f32; %3 = sigmoid(%1) : f32; %4 = mul(%2, %3) : f32; "
                   "%5 = exp(%4) : f32; %6 = sub(%5, %1) : f32"));
  // Row and column broadcasts with an f64 0-d value passed by value.
  compare("fused", {x, row, col, s},
          bodyAttr("%4 = mul(%0, %3) : f32; %5 = add(%4, %1) : f32; %6 = maximum(%5, %2) : f32; "
                   "%7 = relu(%6) : f32"));
  // A bool intermediate, where, clip, sqrt of abs.
  compare("fused", {x, y, row},
          bodyAttr("%3 = gt(%0, %1) : bool; %4 = abs(%0) : f32; %5 = sqrt(%4) : f32; "
                   "%6 = where(%3, %5, %2) : f32; %7 = clip(%6, %1, %2) : f32"));
  // A large flat output: more elements than one grid covers, so the grid-stride loop repeats.
  Tensor big = randomF32({70000, 300}, gen);
  compare("fused", {big, s}, bodyAttr("%2 = mul(%0, %1) : f32; %3 = sigmoid(%2) : f32"));
}
#endif
