//===- tests/ir/unit/GraphTest.cpp - The graph IR API ----------------------===//
//
// Builds graphs through the API the lowering and the executor bridge use and checks the
// guarantees Graph.h documents: topological order skipping only loop back edges, compaction,
// independent clones, use lists, type flattening, and the verifier on API-built graphs.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/Dlmir.h"
#include "compiler/ir/Verifier.h"
#include "compiler/support/Diagnostics.h"

#include <gtest/gtest.h>

using namespace dlm;
using namespace dlm::graph;

namespace {

Type i64() { return Type::tensor(DType::I64, {}); }
Type boolean() { return Type::tensor(DType::Bool, {}); }

/// i = 0; while i < 10: i = i + 1; print(i) — built node by node.
Graph countingLoop() {
  Graph g;
  FrameId f = g.addFrame("loop", kRootFrame, 4);
  auto constant = [&](int64_t v, FrameId frame) {
    Node &n = g.addNode(OpKind::Const, {}, {i64()}, frame);
    n.attrs.emplace("value", v);
    return n.id;
  };
  NodeId zero = constant(0, kRootFrame), ten = constant(10, kRootFrame);
  Node &enter = g.addNode(OpKind::Enter, {Graph::value(zero)}, {i64()}, f);
  enter.attrs.emplace("is_constant", false);
  NodeId e = enter.id;
  NodeId merge = g.addNode(OpKind::Merge, {Graph::value(e), Graph::value(e)}, {i64()}, f).id;
  Node &bound = g.addNode(OpKind::Enter, {Graph::value(ten)}, {i64()}, f);
  bound.attrs.emplace("is_constant", true);
  NodeId b = bound.id;
  NodeId lt = g.addNode(OpKind::Lt, {Graph::value(merge), Graph::value(b)}, {boolean()}, f).id;
  NodeId cond = g.addNode(OpKind::LoopCond, {Graph::value(lt)}, {boolean()}, f).id;
  NodeId sw =
      g.addNode(OpKind::Switch, {Graph::value(merge), Graph::value(cond)}, {i64(), i64()}, f).id;
  NodeId exit = g.addNode(OpKind::Exit, {Graph::value(sw, 0)}, {i64()}, f).id;
  NodeId add = g.addNode(OpKind::Add, {Graph::value(sw, 1), Graph::value(b)}, {i64()}, f).id;
  NodeId next = g.addNode(OpKind::NextIteration, {Graph::value(add)}, {i64()}, f).id;
  g.node(merge).inputs[1] = Graph::value(next);
  g.addNode(OpKind::Print, {Graph::value(exit)}, {}, kRootFrame);
  return g;
}

bool verifies(const Graph &g, std::string *messages = nullptr) {
  DiagnosticEngine diags(llvm::nulls());
  bool ok = verifyGraph(g, diags);
  if (messages)
    for (const Diagnostic &d : diags.getDiagnostics())
      *messages += d.message + "\n";
  return ok;
}

TEST(Graph, BuiltLoopVerifiesAndOrdersAroundTheBackEdge) {
  Graph g = countingLoop();
  std::string why;
  EXPECT_TRUE(verifies(g, &why)) << why;
  std::optional<std::vector<NodeId>> order = g.topologicalOrder();
  ASSERT_TRUE(order);
  ASSERT_EQ(order->size(), g.numNodes());
  std::vector<size_t> position(g.numNodes());
  for (size_t i = 0; i < order->size(); ++i)
    position[(*order)[i]] = i;
  for (const Node &n : g.nodes()) {
    for (ValueRef in : n.inputs) {
      if (n.op == OpKind::Merge && g.node(in.node).op == OpKind::NextIteration)
        continue;
      EXPECT_LT(position[in.node], position[n.id]) << opName(n.op);
    }
  }
}

TEST(Graph, CycleWithoutNextIterationHasNoOrderAndFailsVerification) {
  Graph g;
  NodeId a = g.addNode(OpKind::Neg, {ValueRef{1, 0}}, {i64()}, kRootFrame).id;
  g.addNode(OpKind::Neg, {Graph::value(a)}, {i64()}, kRootFrame);
  EXPECT_FALSE(g.topologicalOrder());
  std::string why;
  EXPECT_FALSE(verifies(g, &why));
  EXPECT_NE(why.find("cycle through %0"), std::string::npos) << why;
}

TEST(Graph, UsesAndCompaction) {
  Graph g = countingLoop();
  std::vector<std::vector<Use>> uses = g.dataUses();
  // The Merge (node 3) feeds lt and the Switch.
  ASSERT_EQ(uses[3].size(), 2u);
  EXPECT_EQ(g.node(uses[3][0].user).op, OpKind::Lt);
  EXPECT_EQ(g.node(uses[3][1].user).op, OpKind::Switch);
  // Drop the trailing print: ids stay dense and the graph still verifies.
  std::vector<bool> keep(g.numNodes(), true);
  keep.back() = false;
  g.compact(keep);
  EXPECT_EQ(g.numNodes(), 11u);
  EXPECT_TRUE(verifies(g));
  // Remove the first const: everything after it renumbers down by one.
  Graph h;
  h.addNode(OpKind::Const, {}, {i64()}, kRootFrame).attrs.emplace("value", int64_t{1});
  NodeId c = h.addNode(OpKind::Const, {}, {i64()}, kRootFrame).id;
  h.node(c).attrs.emplace("value", int64_t{2});
  h.addNode(OpKind::Neg, {Graph::value(c)}, {i64()}, kRootFrame);
  h.compact({false, true, true});
  EXPECT_EQ(h.node(1).inputs[0].node, 0u);
  EXPECT_EQ(h.node(1).id, 1u);
}

TEST(Graph, CloneIsIndependentAndKeepsLocations) {
  Graph g = countingLoop();
  g.node(0).loc = Location{g.internFile("count.dlm"), 3, 5};
  Graph copy = g.clone();
  g.node(0).attrs["value"] = int64_t{7};
  EXPECT_EQ(std::get<int64_t>(copy.node(0).attrs.at("value")), 0);
  EXPECT_EQ(copy.node(0).loc.file, "count.dlm");
  EXPECT_EQ(copy.node(0).loc.line, 3u);
  PrintOptions locs{true};
  EXPECT_NE(graphToString(copy, locs).find("loc(\"count.dlm\":3:5)"), std::string::npos);
}

TEST(Graph, GraphTypesFlattenTuplesAndMakeScalarsZeroD) {
  Type t = Type::tuple({Type::intTy(), Type::tuple({Type::floatTy(), Type::boolTy()}),
                        Type::tensor(DType::F32, {Dim::fixed(2)}), Type::none()});
  std::vector<Type> flat = graphTypes(t);
  ASSERT_EQ(flat.size(), 4u);
  EXPECT_EQ(flat[0].str(), "i64[]");
  EXPECT_EQ(flat[1].str(), "f64[]");
  EXPECT_EQ(flat[2].str(), "bool[]");
  EXPECT_EQ(flat[3].str(), "f32[2]");
  Type sym = Type::tensor(DType::F32, {Dim::symbol("B"), Dim::fixed(3)});
  EXPECT_TRUE(typesCompatible(sym, Type::tensor(DType::F32, {Dim::fixed(8), Dim::fixed(3)})));
  EXPECT_FALSE(typesCompatible(sym, Type::tensor(DType::F32, {Dim::fixed(8), Dim::fixed(4)})));
  EXPECT_FALSE(typesCompatible(sym, Type::tensor(DType::F64, {Dim::fixed(8), Dim::fixed(3)})));
}

TEST(Graph, ControlFlowOpsAreRegistryEntries) {
  for (const char *op :
       {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "Identity"})
    EXPECT_NE(OpRegistry::get().lookup(op), nullptr) << op;
  const OpInfo *enter = OpRegistry::get().lookup("Enter");
  ASSERT_NE(enter->findAttr("is_constant"), nullptr);
  EXPECT_TRUE(OpRegistry::get().lookup("Merge")->variadic);
}

} // namespace
