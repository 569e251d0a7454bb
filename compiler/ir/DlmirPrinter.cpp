//===- compiler/ir/DlmirPrinter.cpp - Graph -> .dlmir text ----------------===//
//
// Prints a Graph in the syntax of Dlmir.h. Output depends only on the graph's contents: nodes in
// NodeId order, attributes in name order (Attrs is an ordered map), frames in FrameId order.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/Dlmir.h"

namespace dlm::graph {

std::string typeToString(const Type &t) { return t.str(); }

namespace {

void printValue(const ValueRef &v, llvm::raw_ostream &os) {
  os << '%' << v.node;
  if (v.port != 0)
    os << '#' << v.port;
}

/// `"file"` with the same escapes as string attributes.
void printQuoted(std::string_view s, llvm::raw_ostream &os) {
  os << attrStr(AttrValue(std::string(s)));
}

void printFrameSuffix(const Graph &g, FrameId f, llvm::raw_ostream &os) {
  if (f != kRootFrame)
    os << " in @" << g.frame(f).name;
}

void printNode(const Graph &g, const Node &n, llvm::raw_ostream &os, const PrintOptions &opts) {
  os << "  %" << n.id;
  if (n.results.size() > 1)
    os << ':' << n.results.size();
  os << " = " << opName(n.op) << '(';
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (i)
      os << ", ";
    printValue(n.inputs[i], os);
  }
  os << ')';
  if (!n.controlInputs.empty()) {
    os << " ctrl(";
    for (size_t i = 0; i < n.controlInputs.size(); ++i)
      os << (i ? ", %" : "%") << n.controlInputs[i];
    os << ')';
  }
  if (!n.attrs.empty()) {
    os << " {";
    bool first = true;
    for (const auto &[name, value] : n.attrs) {
      os << (first ? "" : ", ") << name << " = " << attrStr(value);
      first = false;
    }
    os << '}';
  }
  os << " : ";
  if (n.results.empty())
    os << "()";
  for (size_t i = 0; i < n.results.size(); ++i)
    os << (i ? ", " : "") << typeToString(n.results[i]);
  printFrameSuffix(g, n.frame, os);
  if (!n.device.empty())
    os << " on " << n.device;
  bool gradNode = opts.printGradLocs && !n.loc.gradOf.empty();
  if ((opts.printLocs || gradNode) && n.loc.isKnown()) {
    os << " loc(";
    printQuoted(n.loc.file, os);
    os << ':' << n.loc.line << ':' << n.loc.col;
    if (!n.loc.gradOf.empty()) {
      os << " grad_of ";
      printQuoted(n.loc.gradOf, os);
    }
    // The inlined calls, innermost first: ` in "nn.linear" at "m.dlm":8:26`.
    for (CallSiteId c = n.loc.inlinedAt; c != kNoCallSite; c = g.callSite(c).at.inlinedAt) {
      const CallSite &call = g.callSite(c);
      os << " in ";
      printQuoted(call.function, os);
      os << " at ";
      printQuoted(call.at.file, os);
      os << ':' << call.at.line << ':' << call.at.col;
    }
    os << ')';
  }
  os << '\n';
}

} // namespace

void printGraph(const Graph &g, llvm::raw_ostream &os, const PrintOptions &options) {
  os << "graph @" << g.name() << " {\n";
  for (FrameId f = 1; f < g.numFrames(); ++f) {
    const Frame &fr = g.frame(f);
    os << "  frame @" << fr.name;
    if (fr.parent != kRootFrame)
      os << " in @" << g.frame(fr.parent).name;
    os << " {parallel_iterations = " << fr.parallelIterations << "}\n";
  }
  for (const Node &n : g.nodes())
    printNode(g, n, os, options);
  os << "}\n";
}

std::string graphToString(const Graph &g, const PrintOptions &options) {
  std::string out;
  llvm::raw_string_ostream os(out);
  printGraph(g, os, options);
  return out;
}

} // namespace dlm::graph
