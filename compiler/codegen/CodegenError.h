//===- compiler/codegen/CodegenError.h - Failures inside codegen ----------===//
//
// Internal to compiler/codegen. Inside this directory every failure is an llvm::Error (or an
// llvm::Expected), as in the LLVM code it calls; only the entry points of Codegen.h turn one into
// a diagnostic and an exit status (reportFailure). A CodegenError says whose failure it is — dlm's
// own (an internal error: "internal error: ...", exit status 70) or the environment's (a file that
// cannot be written, no linker: exit status 1) — and may carry the .dlm location the diagnostic
// points at. Any other llvm::Error (LLVM's own: ORC, the target registry, the bitcode reader) is
// an internal error.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_CODEGEN_CODEGENERROR_H
#define DLM_COMPILER_CODEGEN_CODEGENERROR_H

#include "compiler/ir/Graph.h"
#include "compiler/support/Diagnostics.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>

namespace dlm::codegen {

/// Whose failure a CodegenError is.
enum class FailureKind {
  Internal,    ///< a bug in dlm: "internal error: <message>", exit status 70
  Environment, ///< the machine's or the user's files: "<message>", exit status 1
};

class CodegenError : public llvm::ErrorInfo<CodegenError> {
public:
  static char ID;

  CodegenError(FailureKind kind, std::string message,
               std::optional<graph::Location> at = std::nullopt)
      : kind(kind), message(std::move(message)), at(std::move(at)) {}

  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

  FailureKind kind;
  std::string message; ///< without the "internal error: " of an internal one
  std::optional<graph::Location> at;
};

/// An internal error (a bug in dlm), optionally reported at a .dlm location.
llvm::Error internalError(const llvm::Twine &message,
                          std::optional<graph::Location> at = std::nullopt);
/// A failure of the environment: a file that cannot be written, a program not found.
llvm::Error environmentError(const llvm::Twine &message);
/// `error` with "<context>: " in front of its message (an internal error unless it is a
/// CodegenError of another kind).
llvm::Error withContext(llvm::Error error, const llvm::Twine &context);

/// Reports `error` to `diags` and returns the exit status it means (kExitInternal or
/// kExitRuntimeError); kExitOk for success.
int reportFailure(llvm::Error error, DiagnosticEngine &diags);

/// The text of a line of the program's source, for the caret of run-time errors (EmitOptions),
/// read from `diags`' sources; "" when unknown.
std::function<std::string(const graph::Location &)> sourceLines(DiagnosticEngine &diags);

} // namespace dlm::codegen

#endif // DLM_COMPILER_CODEGEN_CODEGENERROR_H
