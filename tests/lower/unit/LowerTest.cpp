//===- tests/lower/unit/LowerTest.cpp - SSA -> graph lowering -------------===//
//
// Builds small SSA programs by hand (what sema would produce for the snippet in each test's
// comment), lowers them, and checks the graph's control-flow structure: the nodes each construct
// must produce, their frames, and that the verifier accepts the result.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lower.h"
#include "compiler/ir/Dlmir.h"
#include "compiler/support/Diagnostics.h"

#include <gtest/gtest.h>

using namespace dlm;
using namespace dlm::graph;

namespace {

Type f32(std::vector<int64_t> dims) {
  Shape s;
  for (int64_t d : dims)
    s.push_back(Dim::fixed(d));
  return Type::tensor(DType::F32, s);
}

/// Appends ops to one block.
struct Builder {
  ssa::Block *block;

  ssa::Operation &op(ssa::OpKind kind, std::vector<ssa::Value *> operands = {}) {
    block->ops.push_back(std::make_unique<ssa::Operation>(kind, llvm::SMRange()));
    ssa::Operation &o = *block->ops.back();
    o.parent = block;
    o.operands = std::move(operands);
    return o;
  }
  ssa::Value *builtin(const char *name, std::vector<ssa::Value *> operands, Type type,
                      Attrs attrs = {}) {
    ssa::Operation &o = op(ssa::OpKind::Builtin, std::move(operands));
    o.info = OpRegistry::get().lookup(name);
    EXPECT_NE(o.info, nullptr) << name;
    o.attrs = std::move(attrs);
    return type.kind() == Type::Kind::None ? nullptr : o.addResult(std::move(type));
  }
  ssa::Value *constant(AttrValue v, Type type) {
    Attrs a;
    a.emplace("value", std::move(v));
    return builtin("const", {}, std::move(type), a);
  }
  ssa::Value *randn(std::vector<int64_t> dims) {
    Attrs a;
    Shape s;
    for (int64_t d : dims)
      s.push_back(Dim::fixed(d));
    a.emplace("shape", s);
    a.emplace("dtype", DType::F32);
    return builtin("randn", {}, f32(dims), a);
  }
  void print(std::vector<ssa::Value *> vs) { builtin("print", std::move(vs), Type::none()); }
  void yield(std::vector<ssa::Value *> vs) { op(ssa::OpKind::Yield, std::move(vs)); }
};

struct Lowered {
  DiagnosticEngine diags{llvm::nulls()};
  std::optional<Graph> graph;

  size_t count(const std::string &op) const {
    size_t n = 0;
    for (const Node &node : graph->nodes())
      n += opName(node.op) == op;
    return n;
  }
  std::vector<const Node *> all(const std::string &op) const {
    std::vector<const Node *> out;
    for (const Node &node : graph->nodes())
      if (opName(node.op) == op)
        out.push_back(&node);
    return out;
  }
};

std::unique_ptr<Lowered> lower(const ssa::Program &p) {
  auto l = std::make_unique<Lowered>();
  l->graph = lower::lowerToGraph(p, l->diags);
  return l;
}

/// The printed graph parses back and verifies: lowering output is valid .dlmir.
void expectRoundTrip(const Graph &g) {
  std::string text = graphToString(g);
  DiagnosticEngine diags(llvm::nulls());
  unsigned buf = diags.addBuffer(text, "lowered.dlmir");
  std::optional<Graph> again = parseGraph(diags, buf);
  ASSERT_TRUE(again) << text;
  EXPECT_EQ(graphToString(*again), text);
}

// x = randn(4)
// if sum(x) > 0.0: y = x * x  else: y = x * 0.5
// print(y)
TEST(Lower, IfSwitchesUsedValuesAndMergesDefinedOnes) {
  ssa::Program p;
  Builder b{&p.addFunction("main", {}).entry()};
  ssa::Value *x = b.randn({4});
  ssa::Value *s = b.builtin("sum", {x}, f32({}));
  ssa::Value *zero = b.constant(0.0, Type::floatTy());
  ssa::Value *c = b.builtin("gt", {s, zero}, Type::tensor(DType::Bool, {}));
  ssa::Operation &ifOp = b.op(ssa::OpKind::If, {c});
  Builder then{ifOp.addRegion().block.get()}, els{ifOp.addRegion().block.get()};
  then.yield({then.builtin("mul", {x, x}, f32({4}))});
  els.yield({els.builtin("mul", {x, els.constant(0.5, Type::floatTy())}, f32({4}))});
  ssa::Value *y = ifOp.addResult(f32({4}));
  b.print({y});
  b.op(ssa::OpKind::Return);

  auto l = lower(p);
  ASSERT_TRUE(l->graph);
  // One Switch for x (shared by both branches), one of the predicate for the else pivot.
  EXPECT_EQ(l->count("Switch"), 2u);
  EXPECT_EQ(l->count("Merge"), 1u);
  EXPECT_EQ(l->count("Identity"), 1u);
  const Node *merge = l->all("Merge")[0];
  // Merge(else, then): the then value is x*x from output 1 of x's Switch.
  const Node &thenMul = l->graph->node(merge->inputs[1].node);
  EXPECT_EQ(thenMul.op, OpKind::Mul);
  EXPECT_EQ(thenMul.inputs[0].port, 1u);
  EXPECT_EQ(l->graph->node(thenMul.inputs[0].node).op, OpKind::Switch);
  // The else constant hangs from the pivot.
  const Node *half = l->all("const").back();
  ASSERT_EQ(half->controlInputs.size(), 1u);
  EXPECT_EQ(l->graph->node(half->controlInputs[0]).op, OpKind::Identity);
  expectRoundTrip(*l->graph);
}

/// i = 0; while i < n: i = i + 1  (n defined before the loop: a loop invariant)
TEST(Lower, WhileBuildsOneFrameWithInvariantEnter) {
  ssa::Program p;
  Builder b{&p.addFunction("main", {}).entry()};
  ssa::Value *i0 = b.constant(int64_t{0}, Type::intTy());
  ssa::Value *n = b.constant(int64_t{10}, Type::intTy());
  ssa::Operation &w = b.op(ssa::OpKind::While, {i0});
  w.carried.push_back(std::make_unique<ssa::Value>(Type::intTy(), nullptr, 0, llvm::SMRange()));
  ssa::Value *i = w.carried[0].get();
  Builder cond{w.addRegion().block.get()}, body{w.addRegion().block.get()};
  cond.op(ssa::OpKind::Condition, {cond.builtin("lt", {i, n}, Type::boolTy())});
  body.yield({body.builtin("add", {i, body.constant(int64_t{1}, Type::intTy())}, Type::intTy())});
  b.print({w.addResult(Type::intTy())});
  b.op(ssa::OpKind::Return);

  auto l = lower(p);
  ASSERT_TRUE(l->graph);
  EXPECT_EQ(l->graph->numFrames(), 2u);
  EXPECT_EQ(l->graph->frame(1).parent, kRootFrame);
  EXPECT_EQ(l->count("LoopCond"), 1u);
  EXPECT_EQ(l->count("NextIteration"), 1u);
  EXPECT_EQ(l->count("Exit"), 1u);
  size_t constantEnters = 0;
  for (const Node *e : l->all("Enter"))
    constantEnters += *e->attrAs<bool>("is_constant");
  EXPECT_EQ(constantEnters, 1u); // n
  // The Merge's back edge comes from the NextIteration.
  const Node *merge = l->all("Merge")[0];
  EXPECT_EQ(l->graph->node(merge->inputs[1].node).op, OpKind::NextIteration);
  // The body's constant 1 runs once per iteration: it hangs from the body pivot.
  const Node *one = l->all("const").back();
  EXPECT_EQ(one->frame, 1u);
  EXPECT_EQ(one->controlInputs.size(), 1u);
  expectRoundTrip(*l->graph);
}

/// for i in range(0, 3): for j in range(0, i): print(j)   -- nested frames, ordered prints
TEST(Lower, NestedForLoopsNestFramesAndCarryTheEffectToken) {
  ssa::Program p;
  Builder b{&p.addFunction("main", {}).entry()};
  ssa::Value *zero = b.constant(int64_t{0}, Type::intTy());
  ssa::Value *three = b.constant(int64_t{3}, Type::intTy());
  ssa::Value *one = b.constant(int64_t{1}, Type::intTy());
  ssa::Operation &outer = b.op(ssa::OpKind::For, {zero, three, one});
  outer.carried.push_back(std::make_unique<ssa::Value>(Type::intTy(), nullptr, 0, llvm::SMRange()));
  Builder ob{outer.addRegion().block.get()};
  ssa::Operation &inner = ob.op(ssa::OpKind::For, {zero, outer.carried[0].get(), one});
  inner.carried.push_back(std::make_unique<ssa::Value>(Type::intTy(), nullptr, 0, llvm::SMRange()));
  Builder ib{inner.addRegion().block.get()};
  ib.print({inner.carried[0].get()});
  ib.yield({});
  ob.yield({});
  b.print({three});
  b.op(ssa::OpKind::Return);

  auto l = lower(p);
  ASSERT_TRUE(l->graph);
  ASSERT_EQ(l->graph->numFrames(), 3u);
  EXPECT_EQ(l->graph->frame(2).parent, 1u);
  // Each loop carries its induction variable and the ordering token.
  EXPECT_EQ(l->count("NextIteration"), 4u);
  std::vector<const Node *> prints = l->all("print");
  ASSERT_EQ(prints.size(), 2u);
  EXPECT_EQ(prints[0]->frame, 2u);
  // The print after the loops waits for the outer loop's token Exit.
  ASSERT_EQ(prints[1]->controlInputs.size(), 1u);
  EXPECT_EQ(l->graph->node(prints[1]->controlInputs[0]).op, OpKind::Exit);
  expectRoundTrip(*l->graph);
}

/// def f(a): return a * 2.0   main: print(f(f(randn(3))))
TEST(Lower, CallsAreInlinedAndRecursionIsAnError) {
  ssa::Program p;
  ssa::Function &mainFn = p.addFunction("main", {});
  ssa::Function &f = p.addFunction("f", {});
  ssa::Value *a = f.entry().addArg(f32({3}), {});
  Builder fb{&f.entry()};
  ssa::Value *r = fb.builtin("mul", {a, fb.constant(2.0, Type::floatTy())}, f32({3}));
  fb.op(ssa::OpKind::Return, {r});
  Builder b{&mainFn.entry()};
  ssa::Operation &c1 = b.op(ssa::OpKind::Call, {b.randn({3})});
  c1.callee = &f;
  ssa::Operation &c2 = b.op(ssa::OpKind::Call, {c1.addResult(f32({3}))});
  c2.callee = &f;
  b.print({c2.addResult(f32({3}))});
  b.op(ssa::OpKind::Return);

  auto l = lower(p);
  ASSERT_TRUE(l->graph);
  EXPECT_EQ(l->count("mul"), 2u);
  std::vector<const Node *> muls = l->all("mul");
  EXPECT_EQ(muls[1]->inputs[0].node, muls[0]->id);

  // def g(a): return g(a)
  ssa::Function &g = p.addFunction("g", {});
  ssa::Value *ga = g.entry().addArg(f32({3}), {});
  Builder gb{&g.entry()};
  ssa::Operation &self = gb.op(ssa::OpKind::Call, {ga});
  self.callee = &g;
  gb.op(ssa::OpKind::Return, {self.addResult(f32({3}))});
  c2.callee = &g;
  auto bad = lower(p);
  EXPECT_FALSE(bad->graph);
  ASSERT_EQ(bad->diags.getDiagnostics().size(), 1u);
  EXPECT_NE(bad->diags.getDiagnostics()[0].message.find("recursive call to 'g'"),
            std::string::npos);
}

} // namespace
