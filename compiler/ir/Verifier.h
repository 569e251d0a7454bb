//===- compiler/ir/Verifier.h - Structural checks on the graph IR ---------===//
//
// The verifier checks the invariants every stage may rely on (docs/ir.md "Verifier"): ops exist
// and get the operands and attributes their registry entry declares; types agree on every edge;
// values enter a frame only through Enter and leave only through Exit; NextIteration stays in its
// frame and feeds a loop Merge, whose inputs are Enter + NextIteration; and the graph has no
// cycle except through NextIteration. It runs after lowering, in dlm-opt, and after every pass
// with --verify-each.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_IR_VERIFIER_H
#define DLM_COMPILER_IR_VERIFIER_H

#include "compiler/ir/Graph.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/SMLoc.h"

namespace dlm {
class DiagnosticEngine;
}

namespace dlm::graph {

/// Maps a node to the place a diagnostic about it should point at (its line in a .dlmir file);
/// an invalid SMLoc means "no such place".
using NodeLocator = llvm::function_ref<llvm::SMLoc(NodeId)>;

/// Checks `g` and reports every violation to `diag`; returns true when the graph is well formed.
/// Diagnostics point at `locate(node)` when it gives a valid location, otherwise they name the
/// node (`%7 'Merge'`) and its source location.
bool verifyGraph(const Graph &g, DiagnosticEngine &diag, NodeLocator locate = nullptr);

} // namespace dlm::graph

#endif // DLM_COMPILER_IR_VERIFIER_H
