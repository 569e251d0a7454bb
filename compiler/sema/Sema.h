//===- compiler/sema/Sema.h - From AST to typed SSA ------------------------===//
//
// Semantic analysis: resolves names (scopes, functions, imports, builtins), builds structured
// SSA (compiler/sema/SSA.h) and infers every value's type, dtype and symbolic shape, reporting
// every error of the whole program to the DiagnosticEngine before anything runs. Functions are
// specialised per call site by argument types (with a cache); imports are parsed and analysed
// on demand. docs/sema.md describes the SSA form; docs/language.md "Types, shapes and errors"
// the rules users see.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_SEMA_SEMA_H
#define DLM_COMPILER_SEMA_SEMA_H

#include "compiler/frontend/AST.h"
#include "compiler/sema/SSA.h"
#include "compiler/support/Diagnostics.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace dlm {

struct SemaOptions {
  /// Where `import nn` looks for nn.dlm; findStdlibDir() gives the default.
  std::string stdlibDir;
  /// Parses an imported file (the frontend's parseFile): reports its own errors, null on
  /// failure. Without it, every import is an error.
  std::function<std::unique_ptr<Module>(llvm::StringRef path, llvm::SMRange importLoc)> parseFile;

  /// A def of the main file that a host program calls (the embedding API, docs/embedding.md):
  /// it is specialised at exactly these parameter types, none of them static, as a call with
  /// arguments of those types would be, and becomes Program::entry.
  struct Entry {
    std::string def;
    std::vector<Type> params;
  };
  std::optional<Entry> entry;

  /// A number a program's code reads by name, like a C compiler's `-DN=3`.
  using Constant = std::variant<int64_t, double, bool>;
  /// Names the main file's code (its defs and top level, not the modules it imports) reads as
  /// these constants, unless a variable of the function has the name: the Python module's
  /// @dlm.jit passes the ints, floats and bools of the Python module its functions read
  /// (docs/python.md). A constant is a literal at each use, so `zeros(N, 4)` has a static
  /// shape.
  std::map<std::string, Constant> constants;
};

/// The type an annotation fixes (a Tensor annotation without a dtype is f32), or nullopt when
/// it leaves something open (a bare `Tensor`, `Tensor[f64]`).
std::optional<Type> annotatedType(const TypeExpr *annotation);

/// The stdlib directory: $DLM_STDLIB if set, else `../../stdlib` next to the executable
/// `argv0` (the build tree's bin/ directory), else the source tree's stdlib/.
std::string findStdlibDir(const char *argv0);

/// The names of the built-in functions, sorted: the table sema resolves calls with (the REPL
/// completes from it, so its list cannot fall behind the language).
std::vector<std::string> builtinFunctionNames();

/// Analyses `module` (the main file). Returns the typed program, or null when any error was
/// reported (all of them are reported, not just the first).
std::unique_ptr<ssa::Program> analyze(Module &module, DiagnosticEngine &diags,
                                      const SemaOptions &options);

} // namespace dlm

#endif // DLM_COMPILER_SEMA_SEMA_H
