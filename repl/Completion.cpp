//===- repl/Completion.cpp - Tab completion ---------------------------------===//
#include "repl/Completion.h"

#include "repl/Commands.h"

#include "compiler/driver/Interactive.h"

#include <algorithm>

namespace dlm::repl {

namespace {

/// The names in `candidates` that start with `start`, each once, in order.
std::vector<std::string> matching(const std::vector<std::string> &candidates,
                                  llvm::StringRef start) {
  std::vector<std::string> out;
  for (const std::string &s : candidates)
    if (llvm::StringRef(s).starts_with(start) && std::find(out.begin(), out.end(), s) == out.end())
      out.push_back(s);
  return out;
}

} // namespace

std::vector<std::string> Completer::complete(llvm::StringRef word) {
  std::vector<std::string> candidates;
  if (word.starts_with(":")) {
    for (const Command &command : commands())
      candidates.push_back(command.name.str());
    return matching(candidates, word);
  }
  candidates = session.names();
  if (languageNames.empty())
    languageNames = dlm::languageNames(argv0);
  candidates.insert(candidates.end(), languageNames.begin(), languageNames.end());
  std::vector<std::string> out = matching(candidates, word);
  // `x.ast` -> `x.astype`: after a value (not a module), what follows the dot is a method or
  // an attribute.
  size_t dot = word.rfind('.');
  if (!out.empty() || dot == llvm::StringRef::npos)
    return out;
  llvm::StringRef value = word.substr(0, dot + 1);
  for (const std::string &member : matching(memberNames(), word.substr(dot + 1)))
    out.push_back(value.str() + member);
  return out;
}

} // namespace dlm::repl
