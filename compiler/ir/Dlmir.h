//===- compiler/ir/Dlmir.h - Textual form of the graph IR -----------------===//
//
// `.dlmir` is the printed form of a Graph, and it parses back: print(parse(t)) is a fixed point
// (docs/ir.md "Textual syntax"). One graph per file:
//
//   graph @main {
//     frame @while0 {parallel_iterations = 10}
//     %0 = const() {dtype = i64, shape = [], value = 0.0} : i64[]
//     %1 = Enter(%0) {is_constant = false} : i64[] in @while0
//     %2 = Merge(%1, %9) : i64[] in @while0
//     %5:2 = Switch(%2, %4) : i64[], i64[] in @while0
//     %8 = print(%5#1) ctrl(%7) : () in @while0 loc("a.dlm":3:5)
//   }
//
// Nodes print in NodeId order as `%<id>`; output k > 0 of a node is `%<id>#k`. Result types are
// always printed; locations only when asked. The parser accepts any `%name` and forward
// references (loops need them) and maps names to NodeIds in order of definition.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_IR_DLMIR_H
#define DLM_COMPILER_IR_DLMIR_H

#include "compiler/ir/Graph.h"

#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace dlm {
class DiagnosticEngine;
}

namespace dlm::graph {

struct PrintOptions {
  /// Append `loc("file":line:col)` to every node with a known location (with
  /// ` grad_of "op"` inside for a gradient node: Location::gradOf).
  bool printLocs = false;
  /// Append the loc(...) to gradient nodes even without printLocs (`--emit=grad`).
  bool printGradLocs = false;
};

/// Prints `g` in the .dlmir syntax.
void printGraph(const Graph &g, llvm::raw_ostream &os, const PrintOptions &options = {});
std::string graphToString(const Graph &g, const PrintOptions &options = {});

/// Prints one type the way .dlmir does: `f32[2, B]`, `i64[]`, `str`.
std::string typeToString(const Type &t);

/// Parses the .dlmir text held in buffer `bufferId` of `diag`'s SourceMgr. Syntax errors and
/// references to undefined values, frames or ops are reported to `diag` at their line:col;
/// returns nullopt after any error. The result is not verified (see Verifier.h). When `opLocs`
/// is given it receives, per NodeId, where the node's op name is written, so later diagnostics
/// (the verifier's) can point into the .dlmir text.
std::optional<Graph> parseGraph(DiagnosticEngine &diag, unsigned bufferId,
                                std::vector<llvm::SMLoc> *opLocs = nullptr);

} // namespace dlm::graph

#endif // DLM_COMPILER_IR_DLMIR_H
