//===- repl/Commands.h - The REPL's commands and what runs an input -------===//
//
// One table of commands (`:type`, `:load`, ...): each row has the command's name, the argument
// it takes, its line of `:help` and its handler. Dispatch, the usage check, `:help` and Tab
// completion of command names all read that table, so a command is added in one place.
// execute() is what every complete input goes through: a command, one of Python's habits
// (`exit`, `quit`, `help`), or dlm code for the session.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_REPL_COMMANDS_H
#define DLM_REPL_COMMANDS_H

#include "repl/Session.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace dlm::repl {

/// What a command acts on: the session, and the REPL's wish to end.
struct CommandContext {
  Session &session;
  bool quit = false;
};

/// The argument a command takes.
enum class ArgumentKind : uint8_t {
  None,     ///< `:reset`
  Required, ///< `:type EXPR`
  Optional, ///< `:cmd [NAME]`
};

struct Command {
  llvm::StringLiteral name;     ///< ":type"
  llvm::StringLiteral alias;    ///< another spelling (":q"), or ""
  ArgumentKind takes;           ///< whether it takes an argument
  llvm::StringLiteral argument; ///< how :help and usage errors name it: "EXPR", "STMT FILE"
  llvm::StringLiteral help;     ///< its line in :help
  /// Runs it with its argument (trimmed; empty when none was given); false after an error.
  bool (*run)(CommandContext &context, llvm::StringRef argument);
};

/// Every command, in the order :help lists them.
llvm::ArrayRef<Command> commands();

/// Runs one complete input (a command is one line, dlm code may be a block); false after an
/// error.
bool execute(CommandContext &context, llvm::StringRef input);

} // namespace dlm::repl

#endif // DLM_REPL_COMMANDS_H
