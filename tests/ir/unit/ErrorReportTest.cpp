//===- tests/ir/unit/ErrorReportTest.cpp - Inlined-call chains and reports ===//
//
// Call sites are interned per graph and survive clone(); describeError reports a node inside
// inlined calls at the user's line (the innermost position in the file of the outermost call),
// the library frames inwards, then the user's callers outwards (docs/runtime.md "Where a
// run-time error points").
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/ErrorReport.h"
#include "compiler/ir/Dlmir.h"
#include "compiler/ir/Verifier.h"
#include "compiler/support/Diagnostics.h"

#include <gtest/gtest.h>

using namespace dlm;
using namespace dlm::graph;

namespace {

Location at(std::string_view file, uint32_t line, uint32_t col,
            CallSiteId inlinedAt = kNoCallSite) {
  return Location{file, line, col, inlinedAt};
}

std::string text(const ErrorNote &n) {
  return std::string(n.at.file) + ":" + std::to_string(n.at.line) + ":" + std::to_string(n.at.col) +
         " " + n.message;
}

/// main (m.dlm) calls model at 16:7; model calls nn.mlp at 9:17; nn.mlp calls nn.linear at
/// nn.dlm:45:12; the failing op is nn.dlm:34:14 inside nn.linear.
struct Chain {
  Graph g;
  CallSiteId model, mlp, linear;
  Chain() {
    model = g.internCallSite("model", at("m.dlm", 16, 7));
    mlp = g.internCallSite("nn.mlp", at("m.dlm", 9, 17, model));
    linear = g.internCallSite("nn.linear", at("nn.dlm", 45, 12, mlp));
  }
};

TEST(ErrorReport, CallSitesAreInternedAndCloned) {
  Chain c;
  EXPECT_EQ(c.model, 1u);
  EXPECT_EQ(c.linear, 3u);
  EXPECT_EQ(c.g.internCallSite("nn.mlp", at("m.dlm", 9, 17, c.model)), c.mlp);
  EXPECT_NE(c.g.internCallSite("nn.mlp", at("m.dlm", 9, 18, c.model)), c.mlp);
  Graph copy = c.g.clone();
  ASSERT_EQ(copy.numCallSites(), c.g.numCallSites());
  c.g = Graph(); // the copy owns its strings
  EXPECT_EQ(copy.callSite(c.linear).function, "nn.linear");
  EXPECT_EQ(copy.callSite(c.linear).at.file, "nn.dlm");
  EXPECT_EQ(copy.callSite(c.linear).at.inlinedAt, c.mlp);
}

TEST(ErrorReport, LibraryFramesInwardsThenCallersOutwards) {
  Chain c;
  ErrorReport r = describeError(c.g, at("nn.dlm", 34, 14, c.linear));
  EXPECT_EQ(r.at.file, "m.dlm");
  EXPECT_EQ(r.at.line, 9u);
  EXPECT_EQ(r.at.col, 17u);
  EXPECT_EQ(r.prefix, "");
  ASSERT_EQ(r.notes.size(), 3u);
  EXPECT_EQ(text(r.notes[0]), "nn.dlm:45:12 inside 'nn.mlp'");
  EXPECT_EQ(text(r.notes[1]), "nn.dlm:34:14 inside 'nn.linear'");
  EXPECT_EQ(text(r.notes[2]), "m.dlm:16:7 'model' called here");
}

TEST(ErrorReport, UserFunctionAndTopLevel) {
  Chain c;
  ErrorReport inModel = describeError(c.g, at("m.dlm", 10, 5, c.model));
  EXPECT_EQ(inModel.at.line, 10u);
  ASSERT_EQ(inModel.notes.size(), 1u);
  EXPECT_EQ(text(inModel.notes[0]), "m.dlm:16:7 'model' called here");
  ErrorReport top = describeError(c.g, at("m.dlm", 20, 1));
  EXPECT_EQ(top.at.line, 20u);
  EXPECT_TRUE(top.notes.empty());
}

TEST(ErrorReport, GradientPrefixKeepsTheOpsOwnPosition) {
  Chain c;
  Location loc = at("nn.dlm", 34, 14, c.linear);
  loc.gradOf = "matmul";
  ErrorReport r = describeError(c.g, loc);
  EXPECT_EQ(r.prefix, "in the gradient of 'matmul' at nn.dlm:34:14: ");
  EXPECT_EQ(r.at.line, 9u);
}

TEST(ErrorReport, UnknownAndRepeatedPositionsGiveNoNote) {
  Graph g;
  // A wrapper the compiler made: its call of the derivative sits at its own call's position.
  CallSiteId wrapper = g.internCallSite("grad(f)", at("m.dlm", 5, 3));
  CallSiteId inner = g.internCallSite("f", at("m.dlm", 5, 3, wrapper));
  CallSiteId unknown = g.internCallSite("nn.linear", at("", 0, 0, inner));
  ErrorReport r = describeError(g, at("nn.dlm", 34, 14, unknown));
  // Reported at the innermost known position in m.dlm (the wrapper's call of f); the unknown
  // call of nn.linear and the wrapper's own call at the same position give no note.
  EXPECT_EQ(r.at.file, "m.dlm");
  EXPECT_EQ(r.at.line, 5u);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(text(r.notes[0]), "nn.dlm:34:14 inside 'nn.linear'");
}

TEST(ErrorReport, DlmirRoundTripsTheChain) {
  const char *text = "graph @main {\n"
                     "  %0 = const() {value = 1.0} : f64[] loc(\"nn.dlm\":34:14 grad_of \"mul\" in "
                     "\"nn.linear\" at \"m.dlm\":9:17 in \"model\" at \"m.dlm\":16:7)\n"
                     "  %1 = print(%0) : () loc(\"m.dlm\":17:1)\n"
                     "}\n";
  DiagnosticEngine diags;
  unsigned buffer = diags.addBuffer(text, "chain.dlmir");
  std::optional<Graph> g = parseGraph(diags, buffer);
  ASSERT_TRUE(g);
  EXPECT_TRUE(verifyGraph(*g, diags));
  const Location &loc = g->node(0).loc;
  ASSERT_NE(loc.inlinedAt, kNoCallSite);
  EXPECT_EQ(g->callSite(loc.inlinedAt).function, "nn.linear");
  CallSiteId outer = g->callSite(loc.inlinedAt).at.inlinedAt;
  ASSERT_NE(outer, kNoCallSite);
  EXPECT_EQ(g->callSite(outer).function, "model");
  EXPECT_EQ(g->callSite(outer).at.inlinedAt, kNoCallSite);
  PrintOptions withLocs;
  withLocs.printLocs = true;
  EXPECT_EQ(graphToString(*g, withLocs), text);
}

TEST(ErrorReport, VerifierRejectsAnUnknownCallSite) {
  Graph g;
  g.addNode(OpKind::Const, {}, {Type::tensor(DType::F64, {})}, kRootFrame, at("m.dlm", 1, 1, 7))
      .attrs.emplace("value", 1.0);
  DiagnosticEngine diags(llvm::nulls());
  EXPECT_FALSE(verifyGraph(g, diags));
}

} // namespace
