//===- compiler/engine/Engine.cpp - Running lowered graphs on the executor -===//
#include "compiler/engine/Engine.h"

#include "compiler/ir/ErrorReport.h"
#include "compiler/ir/OpRegistry.h"
#include "compiler/ir/RuntimeAttrs.h"
#include "runtime/Devices.h"

namespace dlm::engine {

namespace {

bool isExpensive(const graph::Node &n) { return n.info().cost == CostClass::Expensive; }

} // namespace

rt::Status convertGraph(const graph::Graph &graph, rt::ExecGraph &out) {
  // Frames are numbered parents first, root 0, in both graphs.
  for (graph::FrameId f = 1; f < graph.numFrames(); ++f) {
    const graph::Frame &frame = graph.frame(f);
    out.addFrame(frame.name, (rt::ExecFrameId)frame.parent, (int32_t)frame.parallelIterations);
  }
  for (const graph::Node &n : graph.nodes()) {
    std::vector<rt::ExecPort> inputs;
    inputs.reserve(n.inputs.size());
    for (const graph::ValueRef &v : n.inputs)
      inputs.push_back({(rt::ExecNodeId)v.node, (int32_t)v.port});
    rt::ExecKind kind = rt::execKindOf(opName(n.op));
    // An entry graph's result is fetched from an Identity of its value (EntryGraph).
    bool isRetval = n.op == OpKind::Retval;
    if (isRetval)
      kind = rt::ExecKind::Identity;
    rt::Attrs attrs;
    if (kind == rt::ExecKind::Kernel)
      attrs = graph::runtimeAttrs(n);
    rt::ExecNodeId id = out.addNode(isRetval ? "Identity" : opString(n.op), std::move(inputs),
                                    isRetval ? 1 : (int32_t)n.numResults(),
                                    (rt::ExecFrameId)n.frame, std::move(attrs));
    rt::ExecNode &e = out.node(id);
    for (graph::NodeId c : n.controlInputs)
      e.controlInputs.push_back((rt::ExecNodeId)c);
    if (kind == rt::ExecKind::Enter) {
      const bool *isConstant = n.attrAs<bool>("is_constant");
      e.isConstant = isConstant && *isConstant;
    }
    if (kind == rt::ExecKind::Arg) {
      const int64_t *index = n.attrAs<int64_t>("index");
      e.argIndex = index ? (int32_t)*index : 0;
    }
    e.expensive = isExpensive(n);
    e.device = rt::runtimeDevice(n.device);
    e.loc = rt::ExecLocation{std::string(n.loc.file), n.loc.line, n.loc.col,
                             std::string(n.loc.gradOf), n.loc.inlinedAt};
  }
  return out.finalize();
}

namespace {

/// Reports `message` at `loc`, with the source line and a caret when the file can be found
/// among (or read into) the diagnostics engine's buffers, then `notes`.
void reportAt(DiagnosticEngine &diags, const rt::ExecLocation &loc, const std::string &message,
              const std::vector<graph::ErrorNote> &notes = {}) {
  graph::reportError(diags, graph::Location{loc.file, loc.line, loc.col}, message, notes);
}

} // namespace

int runGraph(const graph::Graph &graph, DiagnosticEngine &diags, const EngineOptions &options) {
  rt::ExecGraph exec;
  if (rt::Status s = convertGraph(graph, exec); !s) {
    diags.error("internal error: the graph executor cannot run this graph: " + s.message());
    return 70;
  }
  rt::RunOptions run;
  run.numThreads = options.numThreads;
  return reportRunError(graph, rt::runGraph(exec, run), diags);
}

int reportRunError(const graph::Graph &graph, const rt::RunResult &result,
                   DiagnosticEngine &diags) {
  if (result.ok())
    return 0;
  if (result.internal) { // the executor's own failure (a malformed graph), not the program's
    reportAt(diags, result.errorLoc, result.status.message());
    return 70;
  }
  // A node inside an inlined call is reported at the user's call, its chain as notes.
  const rt::ExecLocation &e = result.errorLoc;
  graph::ErrorReport report =
      graph::describeError(graph, graph::Location{e.file, e.line, e.col, e.inlinedAt, e.gradOf});
  rt::ExecLocation at{std::string(report.at.file), report.at.line, report.at.col};
  reportAt(diags, at, report.prefix + result.status.message(), report.notes);
  return 1;
}

rt::Status EntryGraph::build(const graph::Graph &graph) {
  if (rt::Status s = convertGraph(graph, exec); !s)
    return s;
  for (const graph::Node &n : graph.nodes()) {
    if (n.op == OpKind::Arg)
      ++numArgs;
    if (n.op != OpKind::Retval)
      continue;
    const int64_t *index = n.attrAs<int64_t>("index");
    size_t at = index ? (size_t)*index : 0;
    if (fetches.size() <= at)
      fetches.resize(at + 1);
    fetches[at] = {(rt::ExecNodeId)n.id, 0};
  }
  return rt::Status();
}

rt::RunResult EntryGraph::run(std::vector<rt::Value> args, const EngineOptions &options) const {
  rt::RunOptions run;
  run.numThreads = options.numThreads;
  run.fetches = fetches;
  run.feeds = std::move(args);
  return rt::runGraph(exec, run);
}

} // namespace dlm::engine
