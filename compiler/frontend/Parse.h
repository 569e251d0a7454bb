//===- compiler/frontend/Parse.h - Source text to AST --------------------===//
//
// The frontend's entry points: a source buffer (or file) in, a Module out, every problem
// reported to the DiagnosticEngine. Parsing is two-stage — ANTLR's fast SLL prediction with a
// bail-out strategy first, full LL with error recovery and readable messages only when SLL
// fails — and ends with the AST builder, which reports what the grammar cannot express
// (integer overflow, bad assignment targets, unknown annotation types, ...), and a nesting
// check that keeps every tree within kMaxNestingDepth.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_FRONTEND_PARSE_H
#define DLM_COMPILER_FRONTEND_PARSE_H

#include "compiler/frontend/AST.h"
#include "compiler/support/Diagnostics.h"

#include <memory>
#include <string>
#include <vector>

namespace dlm {

/// Parses buffer `bufferID` of the engine's SourceMgr. Returns null after reporting at least
/// one error; never throws, never crashes on any input. `indent` is the column (0-based) the
/// buffer's top-level statements start at: a def cut out of an indented block of a Python file
/// is parsed in place, so every position is that file's.
std::unique_ptr<Module> parseBuffer(DiagnosticEngine &diag, unsigned bufferID, unsigned indent = 0);

/// Reads `path` into the engine (reporting a missing file or a directory at `importLoc`, or
/// unlocated) and parses it.
std::unique_ptr<Module> parseFile(DiagnosticEngine &diag, llvm::StringRef path,
                                  llvm::SMRange importLoc = {});

/// One token as the parser sees it, after INDENT/DEDENT processing.
struct TokenInfo {
  std::string kind; ///< the grammar's token name: "NAME", "INDENT", "LPAREN", "EOF", ...
  std::string text; ///< the source text ("" for INDENT, DEDENT, EOF)
  llvm::SMRange range;
};

/// The token stream of a buffer (lexical errors are reported to `diag`), its top level at
/// column `indent` as in parseBuffer. For unit tests and `dlmc --emit=tokens`.
std::vector<TokenInfo> tokenize(DiagnosticEngine &diag, unsigned bufferID, unsigned indent = 0);

/// What the end of a piece of source leaves open, as the tokenizer sees it. An interactive
/// session reads more lines while something is (docs/repl.md "Using it").
struct OpenConstructs {
  unsigned brackets = 0;    ///< '(' and '[' not closed by the end
  bool lineJoin = false;    ///< the last line ends in a backslash: the next continues it
  bool longString = false;  ///< a triple-quoted string runs to the end
  bool blockHeader = false; ///< some line ends in ':' (def, if, elif, else, while, for)
};

/// Tokenizes `text` and says what its end leaves open. Nothing is reported: lexical errors
/// are the compilation's to report.
OpenConstructs findOpenConstructs(llvm::StringRef text);

/// The language's keywords as the grammar spells them ("def", "while", "True", ...), in the
/// grammar's order: the REPL completes them.
std::vector<std::string> keywords();

} // namespace dlm

#endif // DLM_COMPILER_FRONTEND_PARSE_H
