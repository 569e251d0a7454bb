//===- repl/Session.h - What a REPL session keeps, and running inputs in it ===//
//
// The session keeps its definitions as source (imports and defs, each replaced when it is
// defined again) and its top-level variables as data (repl/SavedValues.h). Each input is
// compiled as one ordinary program given in parts, each its own source buffer so that every
// position comes out as it should without touching the messages: `<session>` (the
// definitions), the variables' restoring lines (a hidden part: a note about a variable there
// reads "'x' is f32[2, 3], a variable of this session"), the input itself (`<input>`, or the
// file :load reads) and the REPL's own statements after it (printing an expression's value,
// saving what the input assigned). docs/repl.md "How state is kept" has the details.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_REPL_SESSION_H
#define DLM_REPL_SESSION_H

#include "compiler/driver/Compilation.h"
#include "compiler/driver/Driver.h"
#include "compiler/driver/Interactive.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace dlm::repl {

class Session {
public:
  /// `interactive`: stdin and stdout are a terminal (messages may be coloured).
  explicit Session(bool interactive);
  /// Removes the session's private folder and the files of its variables.
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Runs one complete input: its definitions join the session, its statements run, and with
  /// `showValue` the value of an input that is one expression is printed. `name` names the
  /// input's positions ("<input>", or the file :load reads). False after an error, which
  /// leaves the session as it was.
  bool run(llvm::StringRef text, llvm::StringRef name = "<input>", bool showValue = true);
  /// Prints the type of the expression `expr` (`:type`); nothing runs.
  bool showType(llvm::StringRef expr);
  /// Compiles `statement` in the session and prints the form `emit` selects to `os` (`:graph`,
  /// `:grad`, `:dot`); nothing runs.
  bool printStage(llvm::StringRef statement, EmitKind emit, llvm::raw_ostream &os);
  /// Forgets every variable, function and import.
  void reset();

  /// Whether the session has a variable or a function called `name`.
  bool defines(llvm::StringRef name) const;
  /// The session's variables and functions (Tab completion).
  std::vector<std::string> names() const;

private:
  /// One top-level variable: its type and how the next program gets it back.
  struct Variable {
    std::string name;
    Type type;
    std::string restore; ///< the right-hand side that recreates it: `load(...)`, `3.5`
    std::string file;    ///< where its value is saved
  };

  /// Parses `input` and outlines it (its syntax errors are reported); nullopt after an error.
  std::optional<InputOutline> parseInput(const SourcePart &input);
  /// The program for `input`: the session's definitions (less those `outline` defines
  /// again), its variables, the input, and then `epilogue`.
  std::vector<SourcePart> program(const InputOutline *outline, const SourcePart &input,
                                  const std::string &epilogue = "") const;
  /// Compiles `parts` through the stage `emit` needs (all for EmitKind::None), printing its
  /// output to `os`, then calls `then`. Diagnostics are printed after the program's output.
  bool compile(std::vector<SourcePart> parts, EmitKind emit, llvm::raw_ostream &os,
               llvm::function_ref<bool(Compilation &)> then = nullptr);
  /// The DiagnosticEngine hook that prints a note at a variable's restoring line as a note
  /// about the session's variable.
  bool printVariableNote(const DiagnosticEngine &diag, const Diagnostic &note,
                         llvm::raw_ostream &os, bool colors) const;
  /// Checks what `outline`'s input leaves behind: assigned names and the expression's value
  /// (`valueName`, when not empty) must be values, not functions, modules or dtypes.
  bool checkValues(DiagnosticEngine &diag, const InputOutline &outline,
                   const std::vector<ssa::TopLevelName> &topLevel, llvm::StringRef valueName);
  /// Runs the input after a successful check: prints `value`'s value (when given) and saves
  /// each of `kept` to a new file (`files`).
  bool runChecked(const InputOutline &outline, const SourcePart &input,
                  const ssa::TopLevelName *value,
                  const std::vector<const ssa::TopLevelName *> &kept,
                  std::vector<std::string> &files);
  /// Records a definition of the input `origin` (a later one of the same name replaces it).
  void define(Definition definition, llvm::StringRef origin);
  /// Makes `name` a session variable with the value saved in `file`, or says it is not kept.
  void keep(const ssa::TopLevelName &name, const std::string &file);
  /// Ctrl-C before the program started: says so and withdraws the request.
  bool interrupted();

  bool interactive;
  std::string folder;    ///< private: the variables' files
  unsigned nextFile = 0; ///< numbers the files, so that a failed input leaves the old ones
  std::vector<Definition> imports;
  std::vector<Definition> functions;
  std::vector<Variable> variables;
  JitRunner jit; ///< runs every input (each its own program, cached by its graph)
};

} // namespace dlm::repl

#endif // DLM_REPL_SESSION_H
