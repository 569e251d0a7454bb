//===- compiler/driver/Interactive.h - What the REPL asks of the compiler -===//
//
// The questions an interactive session (repl/, docs/repl.md) asks about what is typed, answered
// by the frontend and sema so that the REPL never re-reads source on its own: what the end of
// an input leaves open (findOpenConstructs, the tokenizer's answer, from Parse.h), what an
// input defines and assigns (the parser), and the names the language defines (for Tab
// completion). Compiling and running an input go
// through Compilation, with the program given in parts (CompilerOptions::parts), and JitRunner
// (Driver.h).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_DRIVER_INTERACTIVE_H
#define DLM_COMPILER_DRIVER_INTERACTIVE_H

#include "compiler/frontend/Parse.h"
#include "compiler/support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace dlm {

/// A top-level definition of an input: a def or an import.
struct Definition {
  enum class Kind : uint8_t { Function, Import };
  Kind kind;
  std::string name; ///< the function's name, or the name the import binds
  std::string text; ///< its source, from its first line to its end
  /// An import of a file (`import ./util`, `import "data/util"`): the path as written,
  /// relative to the importing file. Empty for a stdlib module and a def.
  std::string importPath;
};

/// What the parser finds in one input.
struct InputOutline {
  std::vector<Definition> definitions; ///< in order
  bool hasStatements = false;          ///< anything besides the definitions
  bool isExpression = false;           ///< one statement, an expression statement
  /// The names assigned outside the defs (targets of `=`, `op=` and `for`, inside blocks
  /// too), in order of first appearance.
  std::vector<std::string> assigned;
};

/// Parses buffer `bufferID` of `diag` (reporting its syntax errors) and outlines it; nullopt
/// after an error.
std::optional<InputOutline> outlineInput(DiagnosticEngine &diag, unsigned bufferID);

/// Every name the language defines that a user may type: the keywords, the built-in functions,
/// the dtypes, and each stdlib module with its functions ("nn", "nn.linear") as the module
/// files define them today (the stdlib found from `argv0`, sema's findStdlibDir).
std::vector<std::string> languageNames(const char *argv0);

/// What may follow a value and a dot: the built-in functions (`x.sum()` is `sum(x)`) and the
/// attributes `shape` and `T`.
std::vector<std::string> memberNames();

} // namespace dlm

#endif // DLM_COMPILER_DRIVER_INTERACTIVE_H
