//===- repl/Commands.cpp - The REPL's commands and what runs an input -----===//
#include "repl/Commands.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace dlm::repl {

namespace {

bool usageError(llvm::StringRef name, const Command &command) {
  llvm::errs() << "dlm: error: usage: " << name;
  if (command.takes == ArgumentKind::None)
    llvm::errs() << " (takes no argument)\n";
  else if (command.takes == ArgumentKind::Optional)
    llvm::errs() << " [" << command.argument << "]\n";
  else
    llvm::errs() << " " << command.argument << "\n";
  return false;
}

bool showHelp(CommandContext &, llvm::StringRef) {
  llvm::raw_ostream &os = llvm::outs();
  os << "Enter dlm statements, definitions (def, import) and expressions; an expression's value "
        "is\nprinted. A block (def, if, while, for, open brackets, trailing \\) ends with an "
        "empty line.\nCommands:\n";
  for (const Command &command : commands()) {
    std::string usage = command.name.str();
    if (command.takes == ArgumentKind::Required)
      usage += " " + command.argument.str();
    else if (command.takes == ArgumentKind::Optional)
      usage += " [" + command.argument.str() + "]";
    os << "  " << llvm::left_justify(usage, 19) << command.help << "\n";
  }
  return true;
}

bool showType(CommandContext &context, llvm::StringRef expr) {
  return context.session.showType(expr);
}

bool showGraph(CommandContext &context, llvm::StringRef statement) {
  return context.session.printStage(statement, EmitKind::Graph, llvm::outs());
}

bool showGrad(CommandContext &context, llvm::StringRef statement) {
  return context.session.printStage(statement, EmitKind::Grad, llvm::outs());
}

bool writeDot(CommandContext &context, llvm::StringRef argument) {
  auto [statement, file] = argument.rsplit(' ');
  if (file.empty() || statement.trim().empty()) {
    llvm::errs() << "dlm: error: usage: :dot STMT FILE\n";
    return false;
  }
  std::error_code ec;
  llvm::raw_fd_ostream out(file, ec);
  if (ec) {
    llvm::errs() << "dlm: error: cannot write '" << file << "': " << ec.message() << "\n";
    return false;
  }
  return context.session.printStage(statement, EmitKind::Dot, out);
}

bool timeStatement(CommandContext &context, llvm::StringRef statement) {
  auto start = std::chrono::steady_clock::now();
  bool ok = execute(context, statement);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  llvm::outs() << llvm::format("time: %.3f ms\n", ms);
  return ok;
}

/// The file is one input: its definitions join the session and its statements run, or, if
/// anything in it fails, nothing changes. Positions are the file's own.
bool loadFile(CommandContext &context, llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    llvm::errs() << "dlm: error: cannot read '" << path << "': " << buffer.getError().message()
                 << "\n";
    return false;
  }
  return context.session.run((*buffer)->getBuffer(), path, /*showValue=*/false);
}

bool resetSession(CommandContext &context, llvm::StringRef) {
  context.session.reset();
  return true;
}

bool quitSession(CommandContext &context, llvm::StringRef) {
  context.quit = true;
  return true;
}

const Command kCommands[] = {
    // `:help NAME` (a built-in's reference) would make this row's argument Optional "NAME".
    {":help", "", ArgumentKind::None, "", "this text", showHelp},
    {":type", "", ArgumentKind::Required, "EXPR", "type and shape of EXPR (nothing is run)",
     showType},
    {":graph", "", ArgumentKind::Required, "STMT", "the dataflow graph of STMT (e.g. :graph f(x))",
     showGraph},
    {":grad", "", ArgumentKind::Required, "STMT", "the graph of STMT after differentiation",
     showGrad},
    {":dot", "", ArgumentKind::Required, "STMT FILE",
     "write the optimised graph of STMT as Graphviz dot to FILE", writeDot},
    {":time", "", ArgumentKind::Required, "STMT", "run STMT and print the time it took",
     timeStatement},
    {":load", "", ArgumentKind::Required, "FILE", "run a .dlm file in this session", loadFile},
    {":reset", "", ArgumentKind::None, "", "forget every variable, function and import",
     resetSession},
    {":quit", ":q", ArgumentKind::None, "", "leave (as do Ctrl-D, exit and quit)", quitSession},
};

const Command *findCommand(llvm::StringRef name) {
  for (const Command &command : kCommands)
    if (command.name == name || (!command.alias.empty() && command.alias == name))
      return &command;
  return nullptr;
}

/// Runs a command line (`:name argument`).
bool runCommand(CommandContext &context, llvm::StringRef line) {
  auto [name, argument] = line.trim().split(' ');
  argument = argument.trim();
  const Command *command = findCommand(name);
  if (!command) {
    llvm::errs() << "dlm: error: unknown command '" << name << "' (:help lists them)\n";
    return false;
  }
  bool given = !argument.empty();
  if ((command->takes == ArgumentKind::None && given) ||
      (command->takes == ArgumentKind::Required && !given))
    return usageError(name, *command);
  return command->run(context, argument);
}

} // namespace

llvm::ArrayRef<Command> commands() { return kCommands; }

bool execute(CommandContext &context, llvm::StringRef input) {
  llvm::StringRef trimmed = input.trim();
  if (trimmed.empty())
    return true;
  if (trimmed.starts_with(":"))
    return runCommand(context, trimmed);
  // What Python's REPL understands: `exit`, `quit` (with or without `()`) leave, `help` is
  // :help; unless the session has a variable or function of that name.
  llvm::StringRef word = trimmed;
  word.consume_back("()");
  if ((word == "exit" || word == "quit" || word == "help") && !context.session.defines(word))
    return runCommand(context, word == "help" ? ":help" : ":quit");
  return context.session.run(input);
}

} // namespace dlm::repl
