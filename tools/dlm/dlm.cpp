//===- tools/dlm/dlm.cpp - Run dlm scripts --------------------------------===//
//
// `dlm run [options] FILE.dlm [args...]` compiles a script and runs it (the JIT by default,
// `--engine=graph` for the graph executor); arguments after FILE go to the program. `dlm`
// alone (or `dlm repl`) starts the REPL (repl/, docs/repl.md). Exit status: 0 ok, 1 error in the
// program, 2 bad command line, 70 compiler crash; a program that runs returns its own status.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Driver.h"
#include "compiler/driver/Options.h"
#include "repl/Repl.h"

#include "llvm/Support/raw_ostream.h"

using namespace dlm;

static void printHelp(llvm::raw_ostream &os) {
  os << "OVERVIEW: dlm - run dlm model scripts\n\n"
     << "USAGE: dlm run [options] FILE.dlm [args...]   compile and run a script\n"
     << "       dlm                                     interactive REPL (also: dlm repl)\n\n"
     << "OPTIONS (before FILE):\n"
     << "  --engine=jit|graph      execute with the JIT (default) or the graph executor\n"
     << "  --no-cache              compile with LLVM even when the object cache has the program\n";
  printCommonOptionsHelp(os);
  os << "\nOBJECT CACHE: the JIT keeps each program's compiled code on disk, so an unchanged "
        "program\n"
     << "runs again without LLVM compiling it. Directory: $DLM_CACHE_DIR, else "
        "$XDG_CACHE_HOME/dlm,\n"
     << "else $HOME/.cache/dlm; DLM_CACHE_DIR= (empty) turns it off. At most $DLM_CACHE_MAX_SIZE\n"
     << "(bytes, or with a K, M or G suffix; default 256M), least recently used entries removed "
        "first.\n"
     << "A directory or entry another user owns or could write is not used (a warning says so).\n"
     << "--time-passes says whether a run hit it.\n"
     << "\nEXIT STATUS: 0 ok, 1 error in the program, 2 bad command line, 70 internal error\n";
}

/// Parses `dlm run`'s arguments (argv[first..]); returns an exit status when dlm should stop.
static std::optional<int> parseRunArgs(int argc, char **argv, int first, CompilerOptions &options,
                                       RunOptions &run) {
  for (int i = first; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      printHelp(llvm::outs());
      return ExitSuccess;
    }
    if (arg == "--no-cache") {
      run.objectCache = false;
      continue;
    }
    if (arg.consume_front("--engine=")) {
      std::optional<Engine> engine = parseEngine(arg);
      if (!engine)
        return usageError("dlm", "unknown engine '" + arg + "' (expected 'jit' or 'graph')");
      run.engine = *engine;
      continue;
    }
    std::string error;
    OptionStatus status = parseCommonOption(arg, options, error);
    if (status == OptionStatus::Invalid)
      return usageError("dlm", error);
    if (status == OptionStatus::Consumed)
      continue;
    if (isOption(arg))
      return usageError("dlm", "unknown option '" + arg + "'");
    options.input = arg.str();
    run.programArgs.assign(argv + i + 1, argv + argc);
    // `dlm run f.dlm --engine=graph` would silently run on the JIT: dlm's own options after
    // FILE are an error, not program arguments.
    for (const std::string &after : run.programArgs) {
      CompilerOptions scratch;
      std::string ignored;
      llvm::StringRef a = after;
      if (a == "--no-cache" || a.starts_with("--engine=") || a == "--help" || a == "-h" ||
          parseCommonOption(a, scratch, ignored) != OptionStatus::NotMine)
        return usageError("dlm", "option '" + a + "' after the file: dlm's options go before FILE");
    }
    return std::nullopt;
  }
  return usageError("dlm", "no input file after 'run'");
}

int main(int argc, char **argv) {
  if (argc < 2 || llvm::StringRef(argv[1]) == "repl") {
    if (argc > 2 && (llvm::StringRef(argv[2]) == "--help" || llvm::StringRef(argv[2]) == "-h")) {
      printHelp(llvm::outs());
      return ExitSuccess;
    }
    if (argc > 2 && llvm::StringRef(argv[2]).ends_with(".dlm"))
      return usageError("dlm", "'repl' takes no arguments; to run the file: dlm run " +
                                   llvm::StringRef(argv[2]));
    if (argc > 2)
      return usageError("dlm", "'repl' takes no arguments");
    return runRepl(argv[0]);
  }
  llvm::StringRef command = argv[1];
  if (command == "--help" || command == "-h") {
    printHelp(llvm::outs());
    return ExitSuccess;
  }
  if (command == "--version") {
    printVersion(llvm::outs(), "dlm");
    return ExitSuccess;
  }
  if (command.ends_with(".dlm"))
    return usageError("dlm",
                      "unknown command '" + command + "'; to run the file: dlm run " + command);
  if (command != "run")
    return usageError("dlm", "unknown " +
                                 llvm::StringRef(isOption(command) ? "option" : "command") + " '" +
                                 command + "' (expected 'run', '--help' or '--version')");
  CompilerOptions options;
  options.exitWhenDone = true;
  RunOptions run;
  if (std::optional<int> status = parseRunArgs(argc, argv, 2, options, run))
    return *status;
  return compileAndThen("dlm", options,
                        [&](Compilation &compilation) { return executeProgram(compilation, run); });
}
