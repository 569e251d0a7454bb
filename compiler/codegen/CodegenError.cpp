//===- compiler/codegen/CodegenError.cpp - Failures inside codegen --------===//
//
// The error type of compiler/codegen and its one conversion into diagnostics.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/CodegenError.h"

#include "compiler/codegen/Codegen.h"
#include "compiler/ir/ErrorReport.h"

namespace dlm::codegen {

char CodegenError::ID = 0;

llvm::Error internalError(const llvm::Twine &message, std::optional<graph::Location> at) {
  return llvm::make_error<CodegenError>(FailureKind::Internal, message.str(), std::move(at));
}

llvm::Error environmentError(const llvm::Twine &message) {
  return llvm::make_error<CodegenError>(FailureKind::Environment, message.str());
}

llvm::Error withContext(llvm::Error error, const llvm::Twine &context) {
  if (!error)
    return error;
  FailureKind kind = FailureKind::Internal;
  std::optional<graph::Location> at;
  std::string message;
  llvm::handleAllErrors(
      std::move(error),
      [&](const CodegenError &e) {
        kind = e.kind;
        at = e.at;
        message = e.message;
      },
      [&](const llvm::ErrorInfoBase &e) { message = e.message(); });
  return llvm::make_error<CodegenError>(kind, (context + ": " + message).str(), std::move(at));
}

int reportFailure(llvm::Error error, DiagnosticEngine &diags) {
  int status = kExitOk;
  llvm::handleAllErrors(
      std::move(error),
      [&](const CodegenError &e) {
        bool internal = e.kind == FailureKind::Internal;
        std::string message = (internal ? "internal error: " : "") + e.message;
        if (e.at)
          graph::reportError(diags, *e.at, message, {});
        else
          diags.error(message);
        status = internal ? kExitInternal : kExitRuntimeError;
      },
      [&](const llvm::ErrorInfoBase &e) {
        diags.error("internal error: " + e.message());
        status = kExitInternal;
      });
  return status;
}

std::function<std::string(const graph::Location &)> sourceLines(DiagnosticEngine &diags) {
  return [&diags](const graph::Location &loc) -> std::string {
    llvm::SMLoc at = graph::findSourceLoc(diags, loc.file, loc.line, 1);
    if (!at.isValid())
      return "";
    const char *end = at.getPointer();
    while (*end && *end != '\n' && *end != '\r')
      ++end;
    return std::string(at.getPointer(), end);
  };
}

} // namespace dlm::codegen
