//===- compiler/opt/Pipeline.cpp - The pass registry and the pass manager --===//
#include "compiler/opt/Pipeline.h"

#include "compiler/ir/Dlmir.h"
#include "compiler/support/Diagnostics.h"

#include "llvm/Support/Format.h"

namespace dlm::opt {

using namespace graph;

PassResult runVerify(Graph &g, PassContext &ctx) {
  return verifyGraph(g, ctx.diag, ctx.locate) ? PassResult::Unchanged : PassResult::Failed;
}

namespace {

const PassInfo kPasses[] = {
#define DLM_PASS(NAME, FN, HELP) {NAME, HELP, FN},
#include "compiler/opt/Passes.def"
};

} // namespace

llvm::ArrayRef<PassInfo> allPasses() { return kPasses; }

const PassInfo *findPass(llvm::StringRef name) {
  for (const PassInfo &p : kPasses)
    if (name == p.name)
      return &p;
  return nullptr;
}

void printPassList(llvm::raw_ostream &os) {
  for (const PassInfo &p : kPasses)
    os << llvm::format("  %-18s %s\n", p.name, p.help);
}

std::vector<const PassInfo *> pipelineForLevel(unsigned level) {
  std::vector<const PassInfo *> pipeline;
  auto add = [&](const char *name) { pipeline.push_back(findPass(name)); };
  if (level == 0) {
    add("verify");
    return pipeline;
  }
  // -O1: the cleanups that only ever remove work.
  add("dce");
  add("constfold");
  add("cse");
  add("dce");
  if (level == 1)
    return pipeline;
  // -O2: identities expose more constants and common subexpressions; invariants leave loops
  // (and meet their twins from outside in cse); autodiff's stacks of values that became
  // invariant go; gate matmuls on invariant weights become one; dense layers become library
  // calls; clean up after them.
  add("simplify");
  add("constfold");
  add("licm");
  add("ad-stacks");
  add("fuse-horizontal");
  add("cse");
  add("simplify");
  // A loop's gradient: tiled slice gradients become one concat, and the stacks one loop saves
  // for its backward become one stack (fewer run-time calls per iteration).
  add("concat-grads");
  add("merge-stacks");
  add("fuse-library");
  add("dce");
  // Last: elementwise chains become `fused` nodes, one loop each in codegen (docs/codegen.md).
  if (level == 2) {
    add("fuse-elementwise");
    return pipeline;
  }
  // -O3: a second round, for what the first exposed; conv chains move to NHWC where that pays
  // (simplify then folds the reshapes it leaves at free boundaries).
  add("licm");
  add("cse");
  add("layout");
  add("simplify");
  add("dce");
  add("fuse-elementwise");
  return pipeline;
}

bool runPasses(Graph &g, llvm::ArrayRef<const PassInfo *> passes, PassContext &ctx,
               const RunOptions &options) {
  llvm::raw_ostream &out = options.printStream ? *options.printStream : llvm::errs();
  for (const PassInfo *pass : passes) {
    ctx.current = pass->name;
    size_t before = g.numNodes();
    PassResult result = pass->run(g, ctx);
    if (result == PassResult::Failed) {
      ctx.diag.error(llvm::Twine("pass '") + pass->name + "' failed");
      return false;
    }
    // Node ids may have changed: diagnostics can no longer point into the input text.
    if (result == PassResult::Changed)
      ctx.locate = nullptr;
    if (g.numNodes() < before)
      ctx.stats.add(pass->name, "nodes-removed", static_cast<int64_t>(before - g.numNodes()));
    if (options.verifyEach && !verifyGraph(g, ctx.diag, nullptr)) {
      ctx.diag.error(llvm::Twine("the graph is invalid after pass '") + pass->name + "'");
      return false;
    }
    if (options.printAfterAll || options.printAfter == pass->name) {
      out << "// ----- graph after " << pass->name << " ----- //\n";
      printGraph(g, out, PrintOptions{options.printLocs});
    }
  }
  return true;
}

void printStats(const PassStats &stats, llvm::raw_ostream &os) {
  for (const auto &[pass, counters] : stats.all())
    for (const auto &[counter, value] : counters)
      os << "stats: " << pass << "." << counter << " = " << value << "\n";
}

} // namespace dlm::opt
