//===- tests/ir/unit/OpTableTest.cpp - Every row of the op table is complete ===//
//
// ops/Ops.def is the one place an op is declared; what cannot be data is code found by the op's
// kind (STYLE.md "One op, one place"). A forgotten place must fail a test rather than degrade
// silently, so for every row:
//   - a CPU kernel, unless the engines run the op themselves (NoKernel), and then none;
//   - a gradient rule, or NotDifferentiable (registerGradRules asserts never both);
//   - for an elementwise op, inline JIT code (compiler/codegen/ElementCode), or KernelFallback
//     (the JIT calls its kernel), and then none, so the flag cannot go stale;
//   - a row in docs/ops.md;
// and the registry, the CUDA op list and the name lookup agree with the table.
//
//===----------------------------------------------------------------------===//
#include "compiler/autodiff/GradContext.h"
#include "compiler/codegen/ElementCode.h"
#include "compiler/ir/OpRegistry.h"
#include "runtime/Devices.h"
#include "runtime/Kernel.h"
#include "runtime/ScalarOps.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace dlm;
using namespace dlm::opflag;

namespace {

TEST(OpTable, RegistryRowsFollowTheTable) {
  for (OpKind k : allOpKinds()) {
    const OpInfo &info = opInfo(k);
    EXPECT_EQ(info.kind, k);
    EXPECT_EQ(info.name, opName(k));
    EXPECT_EQ(opKindNamed(opName(k)), k);
    EXPECT_NE(info.infer, nullptr) << info.name;
    EXPECT_EQ(info.elementwise, opHas(k, Elementwise)) << info.name;
    EXPECT_EQ(info.sideEffects, opHas(k, SideEffects)) << info.name;
    EXPECT_EQ(info.variadic, opHas(k, Variadic)) << info.name;
    EXPECT_EQ(info.differentiable, !opHas(k, NotDifferentiable)) << info.name;
  }
  EXPECT_EQ(opKindNamed("nonexistent"), std::nullopt);
  EXPECT_EQ(OpRegistry::get().all().size(), kNumOpKinds);
}

TEST(OpTable, EveryOpHasACpuKernelUnlessTheEnginesRunIt) {
  for (OpKind k : allOpKinds()) {
    bool kernel = rt::findKernel(k, rt::Device::CPU) != nullptr;
    EXPECT_EQ(kernel, !opHas(k, NoKernel))
        << "'" << opName(k) << "': " << (kernel ? "a kernel and NoKernel" : "no CPU kernel");
  }
}

TEST(OpTable, EveryOpHasAGradientRuleOrIsMarkedNotDifferentiable) {
  autodiff::registerGradRules();
  for (OpKind k : allOpKinds())
    EXPECT_EQ(opInfo(k).grad != nullptr, !opHas(k, NotDifferentiable))
        << "'" << opName(k) << "': "
        << (opHas(k, NotDifferentiable) ? "a gradient rule and NotDifferentiable"
                                        : "no gradient rule");
}

TEST(OpTable, ScalarCallOpsHaveTheirScalarFunctions) {
  for (OpKind k : allOpKinds())
    for (bool f64 : {false, true})
      EXPECT_EQ(rt::scalarFunction(k, f64).address != nullptr, opHas(k, ScalarCall)) << opName(k);
}

/// Whether the JIT emits `k` inline on operands of `dtype`: tensors, or where the op's type rule
/// rejects one, a 0-d tensor (clip's bounds), else a bool tensor (logical_and, where's condition).
bool emitsInline(OpKind k, DType dtype) {
  const OpInfo &info = opInfo(k);
  const Type candidates[] = {Type::tensor(dtype, {Dim::fixed(4)}), Type::tensor(dtype, {}),
                             Type::tensor(DType::Bool, {Dim::fixed(4)})};
  std::vector<size_t> choice(info.operands.size(), 0);
  std::vector<Type> operands(info.operands.size(), candidates[0]);
  DimContext dims;
  std::string error;
  int culprit = -1;
  Type result = OpRegistry::get().infer(info, operands, {}, dims, error, culprit);
  while (!error.empty() && culprit >= 0 && choice[culprit] + 1 < std::size(candidates)) {
    operands[culprit] = candidates[++choice[culprit]];
    result = OpRegistry::get().infer(info, operands, {}, dims, error, culprit);
  }
  EXPECT_EQ(error, "") << info.name;
  std::vector<DType> types;
  for (const Type &t : operands)
    types.push_back(t.dtype());
  if (!result.isTensor())
    return false;
  llvm::LLVMContext ctx;
  llvm::Module m("probe", ctx);
  llvm::IRBuilder<> b(ctx);
  codegen::ElementCode code(b, m);
  FusedStatement st{k, {}, result.dtype()};
  for (unsigned i = 0; i < types.size(); ++i)
    st.operands.push_back(i);
  return code.supports({st}, types);
}

TEST(OpTable, EveryElementwiseOpHasAJitPath) {
  for (OpKind k : allOpKinds()) {
    if (!opHas(k, Elementwise) || k == OpKind::Fused) // fused: its body's ops
      continue;
    for (DType dtype : {DType::F32, DType::F64})
      EXPECT_EQ(emitsInline(k, dtype), !opHas(k, KernelFallback))
          << "'" << opName(k) << "' on " << dtypeName(dtype) << ": "
          << (opHas(k, KernelFallback) ? "inline code and KernelFallback"
                                       : "no inline code and no KernelFallback");
  }
}

TEST(OpTable, CudaListsComeFromTheTable) {
  std::set<std::string_view> cuda(rt::cudaOps().begin(), rt::cudaOps().end());
  std::set<std::string_view> fused(rt::cudaFusedOps().begin(), rt::cudaFusedOps().end());
  for (OpKind k : allOpKinds()) {
    EXPECT_EQ(cuda.count(opName(k)) != 0, opHas(k, Cuda)) << opName(k);
    EXPECT_EQ(fused.count(opName(k)) != 0, opHas(k, CudaFused)) << opName(k);
    if (opHas(k, CudaFused)) {
      EXPECT_TRUE(opHas(k, Elementwise)) << opName(k);
    }
  }
}

/// Every identifier inside backticks in the second cell of docs/ops.md's table rows, outside
/// {attributes} and (operands).
std::set<std::string> documentedNames() {
  std::ifstream in(std::string(DLM_SOURCE_DIR) + "/docs/ops.md");
  EXPECT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::regex row("\\n\\| [^|]+ \\| ([^\\n]*) \\|");
  std::regex span("`([^`]*)`");
  std::regex braces("\\{[^}]*\\}|\\([^)]*\\)");
  std::regex ident("[A-Za-z_][A-Za-z_0-9]*");
  std::set<std::string> names;
  for (auto r = std::sregex_iterator(text.begin(), text.end(), row); r != std::sregex_iterator();
       ++r) {
    std::string cell = (*r)[1];
    for (auto sp = std::sregex_iterator(cell.begin(), cell.end(), span);
         sp != std::sregex_iterator(); ++sp) {
      std::string inside = std::regex_replace(std::string((*sp)[1]), braces, " ");
      for (auto id = std::sregex_iterator(inside.begin(), inside.end(), ident);
           id != std::sregex_iterator(); ++id)
        names.insert((*id)[0]);
    }
  }
  return names;
}

TEST(OpTable, EveryOpHasARowInTheDocs) {
  std::set<std::string> documented = documentedNames();
  for (OpKind k : allOpKinds())
    EXPECT_TRUE(documented.count(std::string(opName(k))))
        << "'" << opName(k) << "' has no row in docs/ops.md";
}

} // namespace
