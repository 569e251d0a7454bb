//===- compiler/ir/ErrorReport.h - Where a run-time error points ----------===//
//
// A run-time error stops the program at one graph node. Lowering inlines every call, so the
// node's Location may lie inside a function body — often the stdlib's — and its chain of call
// sites (Location::inlinedAt) says through which calls. The error is reported at the user's
// line and the chain follows as notes (docs/runtime.md "Where a run-time error points"):
//
//   m.dlm:8:26: error: cannot multiply f32[4, 3] by f32[5, 2]: inner dimensions 3 and 5 differ
//   nn.dlm:45:12: note: inside 'nn.mlp'           the library frames, from the user's call in
//   nn.dlm:34:14: note: inside 'nn.linear'        to the failing op
//   m.dlm:30:5: note: 'loss_fn' called here       the user's callers, innermost first
//
// The user's line is the innermost position in the program's own file (the file of the
// outermost position). Both engines and AOT executables report through this description: the
// graph executor and the JIT driver with reportError, generated code through its failure-site
// table (compiler/codegen/Emitter.cpp, dlm_set_error_site).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_IR_ERRORREPORT_H
#define DLM_COMPILER_IR_ERRORREPORT_H

#include "compiler/ir/Graph.h"

#include "llvm/Support/SMLoc.h"

#include <string>
#include <vector>

namespace dlm {
class DiagnosticEngine;
}

namespace dlm::graph {

/// A note after a run-time error: a position (its `inlinedAt` unused) and what it says.
struct ErrorNote {
  Location at;
  std::string message;
};

/// How a run-time error at a node is reported.
struct ErrorReport {
  /// Where the error is reported: the user's line.
  Location at;
  /// What the message starts with: "in the gradient of 'OP' at FILE:LINE:COL: " for a
  /// gradient node (the position is the forward op's own), else "".
  std::string prefix;
  std::vector<ErrorNote> notes;
};

/// The report of a run-time error at `loc`, a node's location in `g`.
ErrorReport describeError(const Graph &g, const Location &loc);

/// The position of `file`:`line`:`col` among the engine's buffers, reading the file in when it
/// is not there yet (a program compiled from .dlmir); invalid when neither works.
llvm::SMLoc findSourceLoc(DiagnosticEngine &diags, std::string_view file, unsigned line,
                          unsigned col);

/// Reports `message` as an error at `at` and then `notes`, each with its source line and a
/// caret when its file can be found (else as "FILE:LINE:COL: MESSAGE" without one).
void reportError(DiagnosticEngine &diags, const Location &at, const std::string &message,
                 const std::vector<ErrorNote> &notes);

} // namespace dlm::graph

#endif // DLM_COMPILER_IR_ERRORREPORT_H
