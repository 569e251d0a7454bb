//===- tests/autodiff/unit/GradCheckTest.cpp - Every op's gradient, checked ===//
//
// The gradient-check harness (STYLE.md "Gradient rules are small and checked numerically"):
// for every differentiable op of the registry, a small f64 program with random inputs x and
// random directions t, c computes
//     <J t, c>  by central finite differences of f(x) = sum(op(x) * c), and
//     <t, J^T c> = sum(grad(f)(x) * t)  through the autodiff transformation,
// on the graph executor, and asserts they agree. Ops whose gradient code only appears in
// derivatives (the backward helpers, the stack ops, Identity) are checked through a second
// derivative; the control-flow primitives through programs with if and loops. A test fails when
// an op has neither a gradient rule nor a non-differentiable mark, or has a rule and no check.
//
//===----------------------------------------------------------------------===//
#include "GradCases.h"

#include "compiler/autodiff/GradContext.h"
#include "compiler/engine/Engine.h"
#include "compiler/lower/Lower.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace dlm {
namespace {

using Case = GradCase;
using Input = GradInput;

std::string program(const Case &c) {
  std::string args, params, plus, minus, dot, grads;
  std::vector<std::string> argnums;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const Input &in = c.inputs[i];
    std::string sep = i ? ", " : "";
    params += sep + in.name;
    plus += sep + in.name + " + eps * t_" + in.name;
    minus += sep + in.name + " - eps * t_" + in.name;
    grads += sep + "g_" + in.name;
    dot += std::string(i ? " + " : "") + "sum(g_" + in.name + " * t_" + in.name + ")";
    argnums.push_back(std::to_string(i));
  }
  std::string argTuple = "(";
  for (const std::string &a : argnums)
    argTuple += a + ", ";
  argTuple += ")";
  std::string s = "seed(" + std::to_string(std::hash<std::string>()(c.op + c.body) % 1000) + ")\n";
  for (const Input &in : c.inputs)
    s += in.name + " = " + in.init + "\nt_" + in.name + " = " + in.direction + "\n";
  s += "c = randn(" + c.cShape + ", dtype=f64)\n" + caseFunctions(c);
  s += "eps = " + std::to_string(c.eps) + "\n";
  s += "lhs = (f(" + plus + ", c) - f(" + minus + ", c)) / (2.0 * eps)\n";
  s += grads + (c.inputs.size() == 1 ? "," : "") + " = grad(f, argnums=" + argTuple + ")(" +
       params + ", c)\n";
  s += "rhs = " + dot + "\n";
  s += "assert abs(lhs - rhs) <= " + std::to_string(c.tol) +
       " * (abs(lhs) + abs(rhs)) + 1e-9, \"gradient check failed\"\n";
  return s;
}

/// Parses, checks, lowers (differentiating) and runs `source`; returns the diagnostics, empty
/// when the program ran cleanly.
std::string runProgram(const std::string &source, const std::string &name) {
  std::string out;
  llvm::raw_string_ostream os(out);
  DiagnosticEngine diags(os, "gradcheck");
  std::unique_ptr<ssa::Program> ssa = checkSource(diags, source, name);
  if (!ssa)
    return os.str() + "(rejected)";
  std::optional<graph::Graph> g = lower::lowerToGraph(*ssa, diags);
  if (!g)
    return os.str() + "(lowering failed)";
  int rc = engine::runGraph(*g, diags);
  if (rc != 0)
    return os.str() + "(exit " + std::to_string(rc) + ")";
  return os.str();
}

TEST(GradRules, EveryOpHasARuleOrIsMarkedNonDifferentiable) {
  autodiff::registerGradRules();
  for (const OpInfo *op : OpRegistry::get().all())
    EXPECT_TRUE(!op->differentiable || op->grad)
        << "'" << op->name << "' is differentiable but has no gradient rule";
}

TEST(GradRules, EveryRuleIsChecked) {
  autodiff::registerGradRules();
  std::set<std::string> checked;
  for (const Case &c : gradCases())
    checked.insert(c.op);
  for (const OpInfo *op : OpRegistry::get().all()) {
    if (!op->differentiable)
      continue;
    EXPECT_TRUE(checked.count(op->name)) << "no gradient check for '" << op->name << "'";
  }
}

class GradCheck : public ::testing::TestWithParam<Case> {};

TEST_P(GradCheck, DirectionalDerivativeMatchesFiniteDifferences) {
  const Case &c = GetParam();
  std::string source = program(c);
  std::string diags = runProgram(source, "gradcheck_" + c.op + ".dlm");
  EXPECT_EQ(diags, "") << "program:\n" << source;
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  return info.param.op + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(AllOps, GradCheck, ::testing::ValuesIn(gradCases()), caseName);

} // namespace
} // namespace dlm
