//===- repl/Completion.h - Tab completion -----------------------------------===//
//
// What Tab offers for the word before the cursor: command names after ':', otherwise the
// session's variables and functions and every name the language defines (keywords, built-in
// functions, dtypes, stdlib modules and their functions: compiler/driver/Interactive.h, so the
// list cannot fall behind the language); after a value and a dot, its methods and attributes.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_REPL_COMPLETION_H
#define DLM_REPL_COMPLETION_H

#include "repl/Session.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace dlm::repl {

class Completer {
public:
  /// `argv0` locates the stdlib (sema's findStdlibDir).
  Completer(const Session &session, const char *argv0) : session(session), argv0(argv0) {}

  /// The completions of `word` (the characters before the cursor that can form a name, a
  /// dotted name or a command), each whole.
  std::vector<std::string> complete(llvm::StringRef word);

private:
  const Session &session;
  const char *argv0;
  /// The language's names, read on the first Tab.
  std::vector<std::string> languageNames;
};

} // namespace dlm::repl

#endif // DLM_REPL_COMPLETION_H
