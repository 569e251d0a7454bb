//===- tests/autodiff/unit/GradDTypeTest.cpp - Every gradient in every dtype ===//
//
// Mixed and integer dtypes follow the promotion rules through every gradient, or are rejected
// at compile time with a located error (docs/autodiff.md "Dtypes"). For every differentiable op
// of the registry, each of its cases (GradCases.h) runs with its inputs in every dtype the type
// rules accept: f32, f64, i64, i32 and bool tensors of the case's shape, the same dtypes as 0-d
// tensors, and Python float, int and bool numbers. Sema decides what is accepted: a combination
// it rejects is skipped (its error must be a located one, not an internal error). Each accepted
// combination takes the gradient with respect to its float inputs and prints `sum(g)` (g for a
// number), and the test asserts that
//   1. the program compiles (parse, sema, autodiff, lowering with the graph verifier, the -O2
//      pipeline) and runs with no diagnostic at all, on the JIT and on the graph executor, and
//      at -O0 (no graph passes) on the graph executor;
//   2. every gradient has its input's dtype at run time: the printed sum shows the dtype it was
//      computed in (`tensor(0.5)` is f32, `tensor(0.5, dtype=f64)` f64, `0.5` a float);
//   3. the three runs print the same lines (numbers within a relative 1e-4).
// The accepted combinations of a case run as one program (two compiles and three runs a case);
// when it fails, each combination runs alone so the failure names the ones that fail.
// DLM_DTYPES_DUMP=DIR writes each case's program there (OP.N.dlm) to run it by hand.
//
//===----------------------------------------------------------------------===//
#include "GradCases.h"

#include "compiler/autodiff/GradContext.h"
#include "compiler/codegen/Codegen.h"
#include "compiler/driver/Compilation.h"
#include "compiler/engine/Engine.h"
#include "runtime/Print.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace dlm {
namespace {

/// One way to pass an input: a tensor of the case's shape, a 0-d tensor, or a Python number.
struct Choice {
  enum Kind { Tensor, ZeroDim, Number } kind;
  const char *dtype; ///< f32 f64 i64 i32 bool, or float int bool for a number
  bool isFloat() const {
    return std::string(dtype) == "f32" || std::string(dtype) == "f64" ||
           std::string(dtype) == "float";
  }
  std::string str() const {
    if (kind == Number)
      return dtype;
    return std::string(dtype) + (kind == ZeroDim ? "[]" : "[..]");
  }
};

const Choice kChoices[] = {
    {Choice::Tensor, "f32"},   {Choice::Tensor, "f64"},   {Choice::Tensor, "i64"},
    {Choice::Tensor, "i32"},   {Choice::Tensor, "bool"},  {Choice::ZeroDim, "f32"},
    {Choice::ZeroDim, "f64"},  {Choice::ZeroDim, "i64"},  {Choice::ZeroDim, "i32"},
    {Choice::ZeroDim, "bool"}, {Choice::Number, "float"}, {Choice::Number, "int"},
    {Choice::Number, "bool"},
};

/// A dlm expression for `in` passed as `choice` (values only need the input's domain).
std::string initOf(const GradInput &in, const Choice &choice) {
  std::string d = choice.dtype;
  if (choice.kind == Choice::Number)
    return d == "float" ? "0.75" : d == "int" ? "2" : "True";
  if (choice.kind == Choice::ZeroDim) {
    if (d == "bool")
      return "tensor(True, dtype=bool)";
    bool isInt = d == "i64" || d == "i32";
    return std::string("tensor(") + (isInt ? "2" : "0.75") + ", dtype=" + d + ")";
  }
  std::string randn = "randn(" + in.shape + ")";
  std::string magnitude = in.positive ? "(abs(" + randn + ") + 0.5)" : randn;
  if (d == "bool")
    return in.positive ? "(abs(" + randn + ") >= 0.0)" : "(" + randn + " > 0.0)";
  if (d == "i64" || d == "i32")
    return "(" + magnitude + " * 3.0).astype(" + d + ")" + (in.positive ? " + 1" : "");
  return magnitude + (d == "f32" ? "" : ".astype(" + d + ")");
}

/// The choices an input can take: a number-like input (no shape) has no tensor of a shape.
std::vector<Choice> choicesFor(const GradInput &in) {
  std::vector<Choice> out;
  for (const Choice &c : kChoices)
    if (!(in.shape.empty() && c.kind == Choice::Tensor))
      out.push_back(c);
  return out;
}

using Combination = std::vector<Choice>;

/// Every combination of choices for the case's inputs that has a float input to differentiate
/// (for a second-order case, input 0, which the inner gradient differentiates, is a float).
std::vector<Combination> combinations(const GradCase &c) {
  std::vector<Combination> out{{}};
  for (const GradInput &in : c.inputs) {
    std::vector<Combination> next;
    for (const Combination &prefix : out)
      for (const Choice &choice : choicesFor(in)) {
        next.push_back(prefix);
        next.back().push_back(choice);
      }
    out = std::move(next);
  }
  std::vector<Combination> kept;
  for (const Combination &combo : out) {
    bool anyFloat = std::any_of(combo.begin(), combo.end(), [](auto &ch) { return ch.isFloat(); });
    if (anyFloat && (c.order == 1 || combo[0].isFloat()))
      kept.push_back(combo);
  }
  return kept;
}

std::string describe(const GradCase &c, const Combination &combo) {
  std::string s = c.op + " '" + c.body + "' with";
  for (size_t i = 0; i < combo.size(); ++i)
    s += " " + c.inputs[i].name + ": " + combo[i].str();
  return s;
}

/// The program running `combos` (numbered from `first` in its output): one gradient per
/// combination, each float input's gradient printed as `g <combination> <input> <sum>`.
std::string program(const GradCase &c, const std::vector<Combination> &combos, size_t first = 0) {
  std::string s = "seed(5)\nc = randn(" + c.cShape + ")\n" + caseFunctions(c);
  for (size_t k = 0; k < combos.size(); ++k) {
    std::string n = std::to_string(first + k), args, argnums;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      std::string v = c.inputs[i].name + "_" + n;
      s += v + " = " + initOf(c.inputs[i], combos[k][i]) + "\n";
      args += v + ", ";
      if (combos[k][i].isFloat())
        argnums += std::to_string(i) + ", ";
    }
    s += "gs_" + n + " = grad(f, argnums=(" + argnums + "))(" + args + "c)\n";
    size_t j = 0;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      if (!combos[k][i].isFloat())
        continue;
      std::string g = "gs_" + n + "[" + std::to_string(j++) + "]";
      if (combos[k][i].kind != Choice::Number)
        g = "sum(" + g + ")";
      s += "print(\"g\", " + n + ", " + std::to_string(i) + ", " + g + ")\n";
    }
  }
  return s;
}

/// Parses and checks `source` (no lowering); the diagnostics, empty when sema accepts it.
std::string check(const std::string &source) {
  std::string out;
  llvm::raw_string_ostream os(out);
  DiagnosticEngine diags(os, "dtypes");
  return checkSource(diags, source, "dtypes.dlm") ? "" : os.str();
}

struct Run {
  std::string diagnostics; ///< empty when every run was clean
  /// What each engine printed: the JIT and the graph executor at -O2, the graph executor at -O0.
  std::string jit, graph, graphO0;
};

/// Compiles `source` at `optLevel` as `dlm run` does; null after reporting to `diags`.
std::unique_ptr<Compilation> compile(const std::string &source, unsigned optLevel,
                                     DiagnosticEngine &diags) {
  CompilerOptions options;
  SourcePart part;
  part.name = "dtypes.dlm";
  part.text = source;
  options.parts = {part};
  options.optLevel = optLevel;
  auto compilation = std::make_unique<Compilation>(options, diags);
  if (!compilation->loadInput() || !compilation->run(llvm::nulls()))
    return nullptr;
  return compilation;
}

/// Runs `source` on the JIT and the graph executor (as `dlm run` at -O2) and on the graph
/// executor at -O0 (no graph passes), capturing what each prints.
Run compileAndRun(const std::string &source) {
  Run run;
  llvm::raw_string_ostream os(run.diagnostics);
  DiagnosticEngine diags(os, "dtypes");
  std::string *sink = nullptr;
  rt::setPrintSink([&](std::string_view text) { sink->append(text); });
  if (std::unique_ptr<Compilation> c = compile(source, 2, diags)) {
    sink = &run.jit;
    codegen::CodegenOptions jit;
    jit.objectCache = false;
    if (int rc = codegen::runJit(*c->getGraph(), diags, jit))
      os << "(JIT exit " << rc << ")\n";
    sink = &run.graph;
    if (int rc = engine::runGraph(*c->getGraph(), diags))
      os << "(graph executor exit " << rc << ")\n";
  }
  if (std::unique_ptr<Compilation> c = compile(source, 0, diags)) {
    sink = &run.graphO0;
    if (int rc = engine::runGraph(*c->getGraph(), diags))
      os << "(graph executor at -O0 exit " << rc << ")\n";
  }
  rt::setPrintSink(nullptr);
  return run;
}

/// Numbers in printed output, and the text around them.
void splitNumbers(const std::string &text, std::vector<double> &numbers, std::string &rest) {
  static const std::regex number(R"([-+]?(nan|inf|[0-9]+\.?[0-9]*(e[-+]?[0-9]+)?))");
  auto begin = std::sregex_iterator(text.begin(), text.end(), number);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    rest += text.substr(last, size_t(it->position()) - last) + "#";
    last = size_t(it->position() + it->length());
    numbers.push_back(std::strtod(it->str().c_str(), nullptr));
  }
  rest += text.substr(last);
}

/// Whether the engines printed the same text and numbers within a relative 1e-4.
bool enginesAgree(const std::string &a, const std::string &b) {
  std::vector<double> na, nb;
  std::string ra, rb;
  splitNumbers(a, na, ra);
  splitNumbers(b, nb, rb);
  if (ra != rb || na.size() != nb.size())
    return false;
  for (size_t i = 0; i < na.size(); ++i) {
    double x = na[i], y = nb[i];
    bool same = (std::isnan(x) && std::isnan(y)) || x == y ||
                std::fabs(x - y) <= 1e-4 * std::max(std::fabs(x), std::fabs(y)) + 1e-6;
    if (!same)
      return false;
  }
  return true;
}

/// The problems with one engine's output for `combos`: a missing line or a gradient whose
/// printed dtype is not its input's.
std::string dtypeProblems(const GradCase &c, const std::vector<Combination> &combos, size_t first,
                          const std::string &printed, const char *engine) {
  static const std::regex line(R"(^g ([0-9]+) ([0-9]+) (.*)$)");
  static const std::regex tensor(R"(^tensor\((.*?)(, dtype=(\w+))?\)$)");
  std::map<std::pair<size_t, size_t>, std::string> values;
  std::istringstream in(printed);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_match(l, m, line))
      values[{std::stoul(m[1]), std::stoul(m[2])}] = m[3];
  }
  std::string problems;
  for (size_t k = 0; k < combos.size(); ++k)
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      const Choice &ch = combos[k][i];
      if (!ch.isFloat())
        continue;
      auto it = values.find({first + k, i});
      std::string where = describe(c, combos[k]) + ", gradient of '" + c.inputs[i].name + "'";
      if (it == values.end()) {
        problems += std::string(engine) + ": " + where + " not printed\n";
        continue;
      }
      std::smatch m;
      std::string got = "float";
      if (std::regex_match(it->second, m, tensor))
        got = m[3].matched ? m[3].str() : "f32";
      if (got != ch.dtype)
        problems += std::string(engine) + ": " + where + " is " + got + " (printed " + it->second +
                    "), expected " + ch.dtype + "\n";
    }
  return problems;
}

/// Runs `combos` of `c` as one program; the problems found (empty: none).
std::string runCombinations(const GradCase &c, const std::vector<Combination> &combos,
                            size_t first) {
  std::string source = program(c, combos, first);
  Run run = compileAndRun(source);
  if (!run.diagnostics.empty())
    return run.diagnostics;
  std::string problems = dtypeProblems(c, combos, first, run.jit, "JIT") +
                         dtypeProblems(c, combos, first, run.graph, "graph executor") +
                         dtypeProblems(c, combos, first, run.graphO0, "graph executor at -O0");
  if (!enginesAgree(run.jit, run.graph) || !enginesAgree(run.jit, run.graphO0))
    problems += "the engines disagree:\nJIT:\n" + run.jit + "graph executor:\n" + run.graph +
                "graph executor at -O0:\n" + run.graphO0;
  return problems;
}

class GradDTypes : public ::testing::TestWithParam<std::string> {};

TEST_P(GradDTypes, EveryAcceptedCombinationKeepsItsDType) {
  const std::string &op = GetParam();
  std::vector<GradCase> cases;
  for (const GradCase &c : gradCases())
    if (c.op == op)
      cases.push_back(c);
  ASSERT_FALSE(cases.empty()) << "no case for '" << op << "' in tests/autodiff/unit/GradCases.cpp";
  for (const GradCase &c : cases) {
    std::vector<Combination> accepted, all = combinations(c);
    for (const Combination &combo : all) {
      std::string rejected = check(program(c, {combo}));
      EXPECT_EQ(rejected.find("internal error"), std::string::npos) << describe(c, combo) << ":\n"
                                                                    << rejected;
      if (rejected.empty())
        accepted.push_back(combo);
    }
    // What was covered, for the record (docs/autodiff.md "Dtypes" quotes the totals).
    std::cout << "[ dtypes   ] " << c.op << " '" << c.body << "': " << accepted.size() << " of "
              << all.size() << " combinations accepted\n";
    if (const char *dump = std::getenv("DLM_DTYPES_DUMP")) {
      std::error_code ec;
      std::string name = c.op + "." + std::to_string(&c - &cases.front()) + ".dlm";
      llvm::raw_fd_ostream(std::string(dump) + "/" + name, ec) << program(c, accepted);
    }
    if (accepted.empty())
      continue;
    std::string together = runCombinations(c, accepted, 0);
    if (together.empty())
      continue;
    // Name the combinations that fail.
    bool named = false;
    for (size_t k = 0; k < accepted.size(); ++k) {
      std::string problems = runCombinations(c, {accepted[k]}, k);
      named |= !problems.empty();
      EXPECT_EQ(problems, "") << describe(c, accepted[k]) << "\nprogram:\n"
                              << program(c, {accepted[k]}, k);
    }
    EXPECT_TRUE(named) << "each combination runs alone, but not together:\n" << together;
  }
}

/// Every differentiable op of the registry, so a new op is covered once it has a case.
std::vector<std::string> differentiableOps() {
  autodiff::registerGradRules();
  std::vector<std::string> ops;
  for (const OpInfo *op : OpRegistry::get().all())
    if (op->differentiable)
      ops.push_back(op->name);
  return ops;
}

std::string opName(const ::testing::TestParamInfo<std::string> &info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(AllOps, GradDTypes, ::testing::ValuesIn(differentiableOps()), opName);

} // namespace
} // namespace dlm
