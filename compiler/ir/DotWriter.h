//===- compiler/ir/DotWriter.h - Graphviz view of the graph IR ------------===//
//
// `dlmc --emit=dot` prints a Graph as a Graphviz digraph: each loop frame is a cluster nested in
// its parent's cluster, a node's label is `%id op` and its result types, data edges are solid
// (labelled with the output index when it is not 0), control edges are dashed, and loop back
// edges (NextIteration -> Merge) do not constrain the layout.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_IR_DOTWRITER_H
#define DLM_COMPILER_IR_DOTWRITER_H

#include "compiler/ir/Graph.h"

#include "llvm/Support/raw_ostream.h"

namespace dlm::graph {

/// Writes `g` as a `digraph` in the dot language.
void writeDot(const Graph &g, llvm::raw_ostream &os);

} // namespace dlm::graph

#endif // DLM_COMPILER_IR_DOTWRITER_H
