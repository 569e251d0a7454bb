//===- tests/autodiff/unit/GradCases.cpp - One small program per gradient rule ===//
//
// The case table (GradCases.h). A case's inputs are random f64 values for the numerical check;
// their shapes and domains let the dtype test make the same inputs in other dtypes.
//
//===----------------------------------------------------------------------===//
#include "GradCases.h"

#include "compiler/frontend/Parse.h"
#include "compiler/ir/OpRegistry.h"
#include "compiler/sema/Sema.h"

#include <set>

namespace dlm {
namespace {

GradInput mat(const char *name, const char *shape) {
  return {name, std::string("randn(") + shape + ", dtype=f64)",
          std::string("randn(") + shape + ", dtype=f64)", shape};
}
GradInput positive(const char *name, const char *shape) {
  return {name, std::string("abs(randn(") + shape + ", dtype=f64)) + 0.5",
          std::string("randn(") + shape + ", dtype=f64)", shape, true};
}
/// A number (a `float`) starting at `init`, in direction `direction`.
GradInput number(const char *name, const char *init, const char *direction) {
  return {name, init, direction, "", false};
}

} // namespace

std::unique_ptr<ssa::Program> checkSource(DiagnosticEngine &diags, const std::string &source,
                                          const std::string &name) {
  std::unique_ptr<Module> module = parseBuffer(diags, diags.addBuffer(source, name));
  if (!module)
    return nullptr;
  SemaOptions options;
  options.stdlibDir = findStdlibDir(nullptr);
  std::unique_ptr<ssa::Program> program = analyze(*module, diags, options);
  return program && !diags.hasErrors() ? std::move(program) : nullptr;
}

void PrintTo(const GradCase &c, std::ostream *os) { *os << c.op << ": " << c.body; }

std::vector<GradCase> gradCases() {
  std::vector<GradCase> c;
  auto unary = [&](const char *op, const char *expr, bool pos = false) {
    c.push_back({op, {pos ? positive("a", "3, 4") : mat("a", "3, 4")}, expr, "3, 4"});
  };
  c.push_back({"add", {mat("a", "3, 4"), mat("b", "4")}, "a + b", "3, 4"});
  c.push_back({"sub", {mat("a", "3, 4"), mat("b", "3, 1")}, "a - b", "3, 4"});
  c.push_back({"mul", {mat("a", "3, 4"), mat("b", "4")}, "a * b", "3, 4"});
  c.push_back({"div", {mat("a", "3, 4"), positive("b", "4")}, "a / b", "3, 4"});
  c.push_back({"floordiv", {mat("a", "3, 4"), positive("b", "4")}, "a // b + a", "3, 4"});
  c.push_back({"mod", {mat("a", "5"), positive("b", "5")}, "a % b", "5"});
  c.push_back({"pow", {positive("a", "5"), mat("b", "5")}, "a ** b", "5"});
  c.push_back({"maximum", {mat("a", "3, 4"), mat("b", "4")}, "maximum(a, b)", "3, 4"});
  c.push_back({"minimum", {mat("a", "3, 4"), mat("b", "4")}, "minimum(a, b)", "3, 4"});
  unary("neg", "-a");
  unary("abs", "abs(a)");
  unary("relu", "relu(a)");
  unary("exp", "exp(a)");
  unary("log", "log(a)", true);
  unary("sqrt", "sqrt(a)", true);
  unary("sin", "sin(a)");
  unary("cos", "cos(a)");
  unary("tanh", "tanh(a)");
  unary("sigmoid", "sigmoid(a)");
  c.push_back({"where", {mat("a", "3, 4"), mat("b", "4")}, "where(a > 0.0, a * 2.0, b)", "3, 4"});
  c.push_back({"clip",
               {mat("a", "6"), number("lo", "-0.4", "0.7"), number("hi", "0.5", "-0.3")},
               "clip(a * 2.0, lo, hi)",
               "6"});
  c.push_back(
      {"cast", {mat("a", "3, 4")}, "(a * 3.0).astype(f32).astype(f64)", "3, 4", 1, 1e-2, 1e-4});
  c.push_back({"sum", {mat("a", "3, 4")}, "sum(a, axis=1)", "3"});
  c.push_back({"sum", {mat("a", "3, 4")}, "sum(a * a, axis=0, keepdims=True)", "1, 4"});
  c.push_back({"mean", {mat("a", "3, 4")}, "mean(a, axis=1, keepdims=True)", "3, 1"});
  c.push_back({"logsumexp", {mat("a", "3, 4")}, "logsumexp(a, axis=1)", "3"});
  c.push_back({"norm", {mat("a", "3, 4")}, "norm(a, axis=0)", "4"});
  c.push_back({"max", {mat("a", "3, 4")}, "max(a, axis=1)", "3"});
  c.push_back({"min", {mat("a", "3, 4")}, "min(a, axis=0)", "4"});
  c.push_back({"matmul", {mat("a", "3, 4"), mat("b", "4, 2")}, "a @ b", "3, 2"});
  c.push_back({"matmul", {mat("a", "2, 3, 4"), mat("b", "4")}, "a @ b", "2, 3"});
  c.push_back({"matmul", {mat("a", "4"), mat("b", "2, 4, 3")}, "matmul(a, b)", "2, 3"});
  c.push_back({"dot", {mat("a", "5"), mat("b", "5")}, "dot(a, b) * a", "5"});
  c.push_back({"reshape", {mat("a", "3, 4")}, "reshape(a, 2, 6) * 1.5", "2, 6"});
  c.push_back({"transpose", {mat("a", "2, 3, 4")}, "transpose(a, axes=(1, 2, 0))", "3, 4, 2"});
  c.push_back({"concat", {mat("a", "2, 3"), mat("b", "2, 2")}, "concat((a, b), axis=1)", "2, 5"});
  c.push_back({"stack", {mat("a", "2, 3"), mat("b", "2, 3")}, "stack((a, b), axis=1)", "2, 2, 3"});
  c.push_back({"split", {mat("a", "5, 2")}, "split(a, (2, 3), axis=0)[1] * 2.0", "3, 2"});
  c.push_back({"broadcast_to", {mat("a", "3, 1")}, "broadcast_to(a, (3, 4))", "3, 4"});
  c.push_back({"slice", {mat("a", "4, 5")}, "a[1:3, 0:5:2]", "2, 3"});
  c.push_back({"index", {mat("a", "4, 5")}, "a[2] + a[-1]", "5"});
  c.push_back({"gather", {mat("a", "4, 5")}, "gather(a, tensor([2, 0, 2]), axis=0) * 1.5", "3, 5"});
  c.push_back(
      {"gather", {mat("a", "4, 5")}, "gather(a * a, tensor([3, 1, 3]), axis=1)", "4, 3", 2});
  c.push_back({"expand_dims", {mat("a", "3, 4")}, "expand_dims(a, 1)", "3, 1, 4"});
  c.push_back({"squeeze", {mat("a", "3, 1")}, "squeeze(a, 1)", "3"});
  c.push_back({"softmax", {mat("a", "3, 4")}, "softmax(a, axis=1)", "3, 4"});
  c.push_back({"log_softmax", {mat("a", "3, 4")}, "log_softmax(a, axis=0)", "3, 4"});
  c.push_back(
      {"cross_entropy", {mat("a", "3, 4")}, "cross_entropy(a, tensor([0, 3, 1])) * a", "3, 4"});
  c.push_back({"mse", {mat("a", "3, 4"), mat("b", "3, 4")}, "mse(a, b) * a", "3, 4"});
  c.push_back({"conv2d",
               {mat("a", "1, 2, 5, 5"), mat("b", "3, 2, 3, 3")},
               "conv2d(a, b, stride=2, padding=1)",
               "1, 3, 3, 3"});
  c.push_back({"max_pool2d", {mat("a", "1, 2, 4, 4")}, "max_pool2d(a, 2)", "1, 2, 2, 2"});
  c.push_back({"avg_pool2d", {mat("a", "1, 2, 4, 4")}, "avg_pool2d(a, 2)", "1, 2, 2, 2"});
  c.push_back(
      {"dropout", {mat("a", "3, 4")}, "dropout(a, 0.3)", "3, 4", 1, 1e-6, 1e-6, "    seed(11)\n"});
  // The collectives at one rank (docs/dist.md): their rules run (tests/dist checks them at
  // 2 and 4 ranks), here through second derivatives.
  c.push_back({"allreduce", {mat("a", "3, 4")}, "allreduce(a * a, op=\"mean\") * a", "3, 4", 2});
  c.push_back({"broadcast", {mat("a", "3, 4")}, "broadcast(a * a) * a", "3, 4", 2});
  c.push_back({"full", {number("s", "0.7", "-1.3")}, "full((3, 4), s, dtype=f64) * 2.0", "3, 4"});
  // Through second derivatives: ops that appear in backward code.
  c.push_back({"sum_to", {mat("a", "3, 4"), mat("b", "4")}, "(a + b) * b * a", "3, 4", 2});
  c.push_back({"slice_grad", {mat("a", "4, 5")}, "a[1:3, 0:5:2] * a[1:3, 0:5:2]", "2, 3", 2});
  c.push_back({"index_grad", {mat("a", "4, 5")}, "a[2] * a[1] * a[2]", "5", 2});
  c.push_back(
      {"avg_pool2d_grad", {mat("a", "1, 1, 4, 4")}, "avg_pool2d(a * a, 2)", "1, 1, 2, 2", 2});
  c.push_back({"Identity", {mat("a", "3")}, "checkpoint(inner)(a)", "3", 2});
  c.push_back({"after", {mat("a", "3")}, "checkpoint(inner)(a)", "3", 2});
  for (const char *op : {"stack_push", "stack_top", "stack_pop"})
    c.push_back({op, {mat("a", "3")}, "looped(a)", "3", 2});
  for (const char *op : {"stack_extend", "stack_tail", "stack_drop"})
    c.push_back({op, {mat("a", "3")}, "nested(a)", "3", 2});
  // The control-flow primitives: branches and loops.
  for (const char *op : {"Switch", "Merge", "Enter", "Exit", "NextIteration"})
    c.push_back({op, {mat("a", "3")}, "branchy(a)", "3"});
  // A unary builtin of the op table without a case above (one just added to ops/Ops.def) is
  // checked on (-0.9, 0.9), where the smooth functions such ops are have no singularity (log1p's
  // is at -1); an op that is not smooth there needs a case of its own above.
  std::set<std::string> checked;
  for (const GradCase &k : c)
    checked.insert(k.op);
  for (OpKind kind : allOpKinds()) {
    const OpInfo &info = opInfo(kind);
    if (info.has(opflag::Elementwise | opflag::Builtin) && info.differentiable &&
        info.operands.size() == 1 && !checked.count(info.name))
      c.push_back({info.name,
                   {{"a", "0.9 * tanh(randn(3, 4, dtype=f64))", "randn(3, 4, dtype=f64)", "3, 4"}},
                   info.name + "(a)",
                   "3, 4"});
  }
  return c;
}

/// Helpers the bodies above may call.
const char *const kHelpers = R"(def inner(v):
    return sin(v) * v

def looped(v):
    s = v
    for i in range(3):
        s = sin(s) * v + 0.1
    return s

def nested(v):
    s = v
    for i in range(2):
        for j in range(i + 2):
            s = tanh(s * v) + 0.2
    return s

def branchy(v):
    s = v
    k = 0
    while k < 4:
        if sum(s) > 0.0:
            s = s * 0.8 + sin(s)
        else:
            s = exp(s * 0.5)
        k += 1
    return s

)";

std::string caseFunctions(const GradCase &c) {
  std::string params;
  for (const GradInput &in : c.inputs)
    params += in.name + ", ";
  std::string s = kHelpers;
  s += "def f1(" + params + "c):\n" + c.prelude + "    return sum((" + c.body + ") * c)\n\n";
  if (c.order == 2)
    return s + "def f(" + params + "c):\n    return sum(grad(f1, argnums=0)(" + params + "c) * " +
           c.inputs[0].name + ")\n\n";
  return s + "def f(" + params + "c):\n    return f1(" + params + "c)\n\n";
}

} // namespace dlm
