//===- compiler/ir/DotWriter.cpp - Graphviz view of the graph IR ----------===//
//
// Writes the dot text directly (the graph's own order keeps it deterministic): clusters are
// emitted recursively from the root frame, each holding its nodes and then its child frames;
// edges follow, in NodeId order.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/DotWriter.h"

#include "compiler/ir/Dlmir.h"

namespace dlm::graph {
namespace {

/// Escapes a label for a double-quoted dot string.
std::string escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

std::string label(const Node &n) {
  std::string text = "%" + std::to_string(n.id) + " " + opString(n.op);
  for (const Type &t : n.results)
    text += "\\n" + escape(typeToString(t));
  return text;
}

const char *shapeFor(const Node &n) { return opHas(n.op, opflag::ControlFlow) ? "diamond" : "box"; }

class DotWriter {
public:
  DotWriter(const Graph &g, llvm::raw_ostream &os)
      : g(g), os(os), children(g.numFrames()), members(g.numFrames()) {
    for (FrameId f = 1; f < g.numFrames(); ++f)
      children[g.frame(f).parent].push_back(f);
    for (const Node &n : g.nodes())
      members[n.frame].push_back(n.id);
  }

  void write() {
    os << "digraph \"" << escape(g.name()) << "\" {\n";
    os << "  node [fontname=\"monospace\", fontsize=10];\n";
    writeFrame(kRootFrame, 1);
    for (const Node &n : g.nodes())
      writeEdges(n);
    os << "}\n";
  }

private:
  void indent(unsigned depth) {
    for (unsigned i = 0; i < depth; ++i)
      os << "  ";
  }

  void writeFrame(FrameId f, unsigned depth) {
    for (NodeId id : members[f]) {
      const Node &n = g.node(id);
      indent(depth);
      os << "n" << id << " [label=\"" << label(n) << "\", shape=" << shapeFor(n) << "];\n";
    }
    for (FrameId child : children[f]) {
      indent(depth);
      os << "subgraph cluster_" << child << " {\n";
      indent(depth + 1);
      os << "label=\"frame @" << escape(g.frame(child).name)
         << " (parallel_iterations=" << g.frame(child).parallelIterations << ")\";\n";
      indent(depth + 1);
      os << "style=rounded;\n";
      writeFrame(child, depth + 1);
      indent(depth);
      os << "}\n";
    }
  }

  void writeEdges(const Node &n) {
    for (const ValueRef &in : n.inputs) {
      os << "  n" << in.node << " -> n" << n.id;
      std::vector<std::string> attrs;
      if (in.port != 0)
        attrs.push_back("label=\"" + std::to_string(in.port) + "\"");
      if (n.op == OpKind::Merge && g.node(in.node).op == OpKind::NextIteration)
        attrs.push_back("constraint=false");
      writeAttrs(attrs);
    }
    for (NodeId c : n.controlInputs) {
      os << "  n" << c << " -> n" << n.id;
      writeAttrs({"style=dashed"});
    }
  }

  void writeAttrs(const std::vector<std::string> &attrs) {
    if (!attrs.empty()) {
      os << " [";
      for (size_t i = 0; i < attrs.size(); ++i)
        os << (i ? ", " : "") << attrs[i];
      os << "]";
    }
    os << ";\n";
  }

  const Graph &g;
  llvm::raw_ostream &os;
  std::vector<std::vector<FrameId>> children;
  std::vector<std::vector<NodeId>> members;
};

} // namespace

void writeDot(const Graph &g, llvm::raw_ostream &os) { DotWriter(g, os).write(); }

} // namespace dlm::graph
