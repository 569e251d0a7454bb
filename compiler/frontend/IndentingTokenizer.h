//===- compiler/frontend/IndentingTokenizer.h - INDENT/DEDENT and line joining ===//
//
// The generated DlmLexer produces one NEWLINE token per line break, carrying the next line's
// leading whitespace. This subclass turns that stream into the one the grammar parses:
//   - NEWLINE only at the end of a logical line: none inside brackets (implicit line joining),
//     none for blank or comment-only lines, none before the first statement;
//   - INDENT when a line is indented deeper than the enclosing block, one DEDENT per block it
//     closes; at the end of the file a final NEWLINE and the DEDENTs of every open block;
//   - lexical errors reported to the SyntaxErrorCollector with a precise location: a tab in
//     indentation, a dedent to a column no enclosing block started at, an unexpected indent
//     of the first line, unterminated strings, unbalanced or mismatched brackets, stray
//     characters (NUL bytes included), too many nested brackets or blocks.
// Erroneous input is repaired so the parser can continue: stray characters and unbalanced
// closers are dropped, a mismatched closer is taken as the right one, a bad dedent stays at the
// block it reached. Internal to the frontend.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_FRONTEND_INDENTINGTOKENIZER_H
#define DLM_COMPILER_FRONTEND_INDENTINGTOKENIZER_H

#include "compiler/frontend/SyntaxErrors.h"

#include "DlmLexer.h"

#include <deque>
#include <memory>
#include <vector>

namespace dlm {

/// The deepest bracket nesting the lexer accepts ("too deeply nested" beyond).
constexpr unsigned kMaxBracketDepth = 200;
/// The deepest block nesting the lexer accepts.
constexpr unsigned kMaxIndentDepth = 100;

class IndentingTokenizer : public grammar::DlmLexer {
public:
  /// `indent`: the column of the top level (0 for a file; more for a def cut out of an
  /// indented block, Parse.h parseBuffer).
  IndentingTokenizer(antlr4::CharStream *input, SyntaxErrorCollector &errors, unsigned indent = 0)
      : grammar::DlmLexer(input), errors(errors), levels{{indent, false}} {}

  std::unique_ptr<antlr4::Token> nextToken() override;

private:
  struct Level {
    unsigned column;
    bool synthetic; ///< pushed to recover from a bad dedent: closes without a DEDENT
  };
  struct OpenBracket {
    size_t type;
    size_t start;
  };

  void lexOne();
  void onNewline(std::unique_ptr<antlr4::Token> raw);
  void onEndOfFile(std::unique_ptr<antlr4::Token> raw);
  void onOpenBracket(std::unique_ptr<antlr4::Token> raw);
  void onCloseBracket(std::unique_ptr<antlr4::Token> raw);
  void onStrayCharacter(const antlr4::Token &raw);
  /// Computes the indentation column of a NEWLINE's text, reporting tabs.
  unsigned indentationOf(const antlr4::Token &newline);
  void changeIndentation(unsigned column, size_t lineStart);
  void stopLexing(size_t at);
  void push(std::unique_ptr<antlr4::Token> token);
  /// Pushes a token the raw lexer did not produce, covering `width` code points from `at`.
  void pushSynthetic(size_t type, size_t at, const char *text, size_t width = 0);
  void error(size_t start, size_t stop, std::string message, bool fatal = false);

  SyntaxErrorCollector &errors;
  std::deque<std::unique_ptr<antlr4::Token>> pending;
  std::vector<Level> levels; ///< the top level's first
  std::vector<OpenBracket> brackets;
  size_t lastType = 0; ///< type of the last token queued (0 = none yet)
  size_t endIndex = 0; ///< where the end-of-file token sits once `finished`
  bool finished = false;
};

} // namespace dlm

#endif // DLM_COMPILER_FRONTEND_INDENTINGTOKENIZER_H
