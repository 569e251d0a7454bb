//===- compiler/frontend/SyntaxErrors.h - Readable syntax errors ----------===//
//
// The lexer subclass and the parser's error strategy do not report straight to the
// DiagnosticEngine: they report to a SyntaxErrorCollector, which sorts the errors by position
// and drops the cascades before anything is printed:
//   - at most one error per source line (the first, by position);
//   - nothing at or after a "fatal" lexer error (an unclosed bracket swallows the rest of the
//     file, a nesting-limit error stops lexing);
//   - an error at the end of the file only when it is the only one.
// The error strategy turns ANTLR's expected-token sets into messages such as "expected ':'
// after function signature" or "expected expression after '+'" instead of token soup.
// Internal to the frontend (it sees ANTLR types).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_FRONTEND_SYNTAXERRORS_H
#define DLM_COMPILER_FRONTEND_SYNTAXERRORS_H

#include "compiler/support/Diagnostics.h"
#include "compiler/support/SourceText.h"

#include "BaseErrorListener.h"
#include "DefaultErrorStrategy.h"

#include <optional>
#include <string>
#include <vector>

namespace dlm {

class SyntaxErrorCollector {
public:
  explicit SyntaxErrorCollector(const SourceText &text) : text(text) {}

  /// A lexer error. `fatal` errors suppress every later error (see the file comment).
  void lexerError(llvm::SMRange range, std::string message, bool fatal = false);
  /// Attaches a note to the last lexer error.
  void lexerNote(llvm::SMRange range, std::string message);
  void parserError(llvm::SMRange range, std::string message);

  bool hasErrors() const { return !errors.empty(); }
  /// Reports the surviving errors, in source order, to `diag`; returns how many.
  unsigned flush(DiagnosticEngine &diag);

  const SourceText &getText() const { return text; }

private:
  struct PendingError {
    llvm::SMRange range;
    std::string message;
    std::vector<std::pair<llvm::SMRange, std::string>> notes;
    bool fromLexer;
  };
  const SourceText &text;
  std::vector<PendingError> errors;
  std::optional<const char *> fatalFrom;
};

/// DefaultErrorStrategy's recovery with dlm's messages.
class DlmErrorStrategy : public antlr4::DefaultErrorStrategy {
public:
  /// No eager resynchronisation before subrules and loops: errors are then found where a
  /// token is matched, where single-token insertion (a missing ':') repairs them without the
  /// cascade ("unexpected indent" on the next line) an early bail-out causes.
  void sync(antlr4::Parser *parser) override {}

protected:
  void reportNoViableAlternative(antlr4::Parser *parser,
                                 const antlr4::NoViableAltException &e) override;
  void reportInputMismatch(antlr4::Parser *parser,
                           const antlr4::InputMismatchException &e) override;
  void reportFailedPredicate(antlr4::Parser *parser,
                             const antlr4::FailedPredicateException &e) override;
  void reportUnwantedToken(antlr4::Parser *parser) override;
  void reportMissingToken(antlr4::Parser *parser) override;

private:
  void reportAt(antlr4::Parser *parser, antlr4::Token *offending,
                const antlr4::misc::IntervalSet &expected);
};

/// Forwards the strategy's messages to a SyntaxErrorCollector.
class DlmErrorListener : public antlr4::BaseErrorListener {
public:
  explicit DlmErrorListener(SyntaxErrorCollector &collector) : collector(collector) {}
  void syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *offendingSymbol, size_t line,
                   size_t charPositionInLine, const std::string &msg,
                   std::exception_ptr e) override;

private:
  SyntaxErrorCollector &collector;
};

/// How the frontend shows a token in messages: "':'", "name 'x'", "end of line", ...
std::string describeToken(const antlr4::Token *token);

} // namespace dlm

#endif // DLM_COMPILER_FRONTEND_SYNTAXERRORS_H
