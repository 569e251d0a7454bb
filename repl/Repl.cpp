//===- repl/Repl.cpp - The interactive dlm session ------------------------===//
//
// Reads inputs — a line, or a block of lines — from the line editor (a terminal) or from
// piped standard input, and hands each complete one to execute() (repl/Commands.h). Whether an
// input is complete is the tokenizer's answer (findOpenConstructs): more lines are read while a
// bracket or a triple-quoted string is open, after a final backslash, and after a block header
// (a line ending in ':') until an empty line. Ctrl-C at the prompt drops what was typed.
//
//===----------------------------------------------------------------------===//
#include "repl/Repl.h"

#include "repl/Commands.h"
#include "repl/Completion.h"
#include "repl/Session.h"

#include "compiler/driver/Interactive.h"
#include "runtime/Interrupt.h"

#include "llvm/LineEditor/LineEditor.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <unistd.h>

namespace dlm {

namespace {

/// Whether `text` needs more lines; `lastLineEmpty`: its last line was empty (ends a block).
bool needsMore(llvm::StringRef text, bool lastLineEmpty) {
  if (text.ltrim().starts_with(":"))
    return false; // a command is one line (`:type x[1:]`, `:`)
  OpenConstructs open = findOpenConstructs(text);
  if (open.brackets > 0 || open.lineJoin || open.longString)
    return true;
  return open.blockHeader && !lastLineEmpty;
}

/// What the user did at a prompt.
enum class Read { Line, End, Cancelled };

/// Reads lines from the line editor on a terminal, from stdin otherwise.
class LineReader {
public:
  LineReader(bool interactive, repl::Completer &completer) {
    if (!interactive)
      return;
    if (const char *env = std::getenv("DLM_HISTORY"))
      historyPath = env;
    else if (const char *home = std::getenv("HOME"))
      historyPath = std::string(home) + "/.dlm_history";
    editor.emplace("dlm", historyPath);
    if (!historyPath.empty())
      editor->loadHistory();
    editor->setListCompleter([&completer](llvm::StringRef buffer, size_t pos) {
      llvm::StringRef before = buffer.substr(0, pos);
      size_t start = before.find_last_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:.");
      llvm::StringRef word = start == llvm::StringRef::npos ? before : before.substr(start + 1);
      std::vector<llvm::LineEditor::Completion> out;
      for (const std::string &c : completer.complete(word))
        out.emplace_back(c.substr(word.size()), c);
      return out;
    });
  }
  ~LineReader() {
    if (editor && !historyPath.empty())
      editor->saveHistory();
  }

  /// Reads one line into `line`; `continuation`: inside an open block (the `... ` prompt).
  Read read(bool continuation, std::string &line) {
    return editor ? readEditor(continuation, line) : readPiped(line);
  }

private:
  Read readEditor(bool continuation, std::string &line) {
    editor->setPrompt(continuation ? "... " : ">>> ");
    std::optional<std::string> got = editor->readLine();
    if (dlm_interrupt_requested()) { // the editor's read was interrupted, as in Python
      dlm_interrupt_clear();
      llvm::outs() << "\n";
      llvm::outs().flush();
      return Read::Cancelled;
    }
    if (!got)
      return Read::End;
    line = std::move(*got);
    return Read::Line;
  }

  /// Piped input: a Ctrl-C while reading stays pending and stops the next input.
  static Read readPiped(std::string &line) {
    line.clear();
    for (;;) {
      int c = std::getc(stdin);
      if (c == EOF && std::ferror(stdin) && errno == EINTR) {
        std::clearerr(stdin);
        continue;
      }
      if (c == EOF)
        return line.empty() ? Read::End : Read::Line;
      if (c == '\n')
        return Read::Line;
      line += char(c);
    }
  }

  std::optional<llvm::LineEditor> editor;
  std::string historyPath;
};

/// Reads one complete input into `block`: a line, and the lines that continue it.
Read readInput(LineReader &reader, std::string &block) {
  std::string line;
  Read got = reader.read(/*continuation=*/false, line);
  if (got != Read::Line)
    return got;
  block = line + "\n";
  bool lastEmpty = llvm::StringRef(line).trim().empty();
  while (!llvm::StringRef(block).trim().empty() && needsMore(block, lastEmpty)) {
    got = reader.read(/*continuation=*/true, line);
    if (got == Read::Cancelled)
      return got; // Ctrl-C inside a block drops the whole block
    if (got == Read::End)
      break;
    lastEmpty = llvm::StringRef(line).trim().empty();
    if (lastEmpty && !needsMore(block, true))
      break;
    block += line + "\n";
  }
  return Read::Line;
}

} // namespace

int runRepl(const char *argv0) {
  bool interactive = isatty(0) && isatty(1);
  repl::Session session(interactive);
  repl::Completer completer(session, argv0);
  LineReader reader(interactive, completer);
  if (interactive) {
    llvm::outs() << "dlm REPL — :help for commands, Ctrl-D to exit\n";
    llvm::outs().flush();
  }
  // Ctrl-C stops the running input (runtime/Interrupt.h), or at the prompt drops the line.
  rt::InterruptHandler onCtrlC;
  repl::CommandContext context{session};
  bool anyError = false;
  while (!context.quit) {
    std::string block;
    Read got = readInput(reader, block);
    if (got == Read::End)
      break;
    if (got == Read::Cancelled)
      continue;
    if (!repl::execute(context, block))
      anyError = true;
    llvm::outs().flush();
    std::fflush(stdout);
  }
  llvm::outs().flush();
  llvm::errs().flush();
  std::fflush(nullptr);
  return !interactive && anyError ? 1 : 0;
}

} // namespace dlm
