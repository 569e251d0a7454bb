//===- tests/executor/ExecBuilders.cpp - Building executable graphs by hand ===//
#include "tests/executor/ExecBuilders.h"

namespace dlm::rt::test {

ExecPort out(ExecNodeId node, int32_t port) { return ExecPort{node, port}; }

namespace {
ExecNodeId constNode(ExecGraph &g, Attr value, ExecFrameId frame, ExecNodeId after) {
  ExecNodeId id = g.addNode("const", {}, 1, frame, Attrs{{"value", std::move(value)}});
  if (after >= 0)
    g.addControlEdge(after, id);
  return id;
}
} // namespace

ExecNodeId constI64(ExecGraph &g, int64_t v, ExecFrameId frame, ExecNodeId after) {
  return constNode(g, Attr(v), frame, after);
}

ExecNodeId constBool(ExecGraph &g, bool v, ExecFrameId frame, ExecNodeId after) {
  return constNode(g, Attr(v), frame, after);
}

ExecNodeId op(ExecGraph &g, const std::string &name, std::vector<ExecPort> inputs,
              ExecFrameId frame, Attrs attrs) {
  return g.addNode(name, std::move(inputs), 1, frame, std::move(attrs));
}

std::vector<ExecPort> buildWhile(ExecGraph &g, ExecFrameId parent, const std::string &name,
                                 int32_t parallelIterations, const std::vector<ExecPort> &inits,
                                 const CondFn &cond, const BodyFn &body) {
  ExecFrameId f = g.addFrame(name, parent, parallelIterations);
  std::vector<ExecNodeId> merges;
  std::vector<ExecPort> mergeOuts;
  for (const ExecPort &init : inits) {
    ExecNodeId enter = g.addEnter(init, f, false);
    merges.push_back(g.addNode("Merge", {out(enter)}, 1, f));
    mergeOuts.push_back(out(merges.back()));
  }
  ExecPort pred = cond(g, f, mergeOuts, merges[0]);
  ExecNodeId loopCond = g.addNode("LoopCond", {pred}, 1, f);
  LoopBody b{f, {}, -1};
  std::vector<ExecPort> exits;
  for (ExecNodeId m : merges) {
    ExecNodeId sw = g.addNode("Switch", {out(m), out(loopCond)}, 2, f);
    exits.push_back(out(g.addNode("Exit", {out(sw, 0)}, 1, f)));
    ExecNodeId id = g.addNode("Identity", {out(sw, 1)}, 1, f);
    if (b.pivot < 0)
      b.pivot = id;
    b.vars.push_back(out(id));
  }
  std::vector<ExecPort> next = body(g, b);
  for (size_t i = 0; i < merges.size(); ++i) {
    ExecNodeId ni = g.addNode("NextIteration", {next[i]}, 1, f);
    g.node(merges[i]).inputs.push_back(out(ni));
  }
  return exits;
}

std::vector<ExecPort> buildCountedLoop(ExecGraph &g, ExecFrameId parent, const std::string &name,
                                       int32_t parallelIterations, int64_t n,
                                       const std::vector<ExecPort> &inits, const BodyFn &body,
                                       ExecNodeId initAfter) {
  std::vector<ExecPort> all = {out(constI64(g, 0, parent, initAfter))};
  all.insert(all.end(), inits.begin(), inits.end());
  auto cond = [n](ExecGraph &g, ExecFrameId f, const std::vector<ExecPort> &vars,
                  ExecNodeId pivot) {
    return out(op(g, "lt", {vars[0], out(constI64(g, n, f, pivot))}, f));
  };
  auto loopBody = [&body](ExecGraph &g, const LoopBody &b) {
    std::vector<ExecPort> next = {
        out(op(g, "add", {b.vars[0], out(constI64(g, 1, b.frame, b.pivot))}, b.frame))};
    std::vector<ExecPort> rest = body(g, b);
    next.insert(next.end(), rest.begin(), rest.end());
    return next;
  };
  std::vector<ExecPort> exits =
      buildWhile(g, parent, name, parallelIterations, all, cond, loopBody);
  return std::vector<ExecPort>(exits.begin() + 1, exits.end());
}

} // namespace dlm::rt::test
