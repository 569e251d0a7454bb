//===- tools/dlmc/dlmc.cpp - The dlm compiler driver ----------------------===//
//
// `dlmc FILE.dlm` checks a program through every stage of this build; `--emit=KIND` prints
// one stage instead (the golden tests' entry point); `-o EXE` compiles ahead of time (an
// executable linked with the static runtime), `-c` / `--emit=obj` stops at the object file.
// Exit status: 0 ok, 1 error in the program, 2 bad command line, 70 compiler crash.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Driver.h"
#include "compiler/driver/Library.h"
#include "compiler/driver/Options.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace dlm;

static void printHelp(llvm::raw_ostream &os) {
  os << "OVERVIEW: dlmc - the dlm compiler\n\n"
     << "USAGE: dlmc [options] FILE.dlm       check a program through every stage\n"
     << "       dlmc --emit=KIND FILE.dlm     print one stage's output\n"
     << "       dlmc FILE.dlm -o EXE          compile ahead of time\n"
     << "       dlmc --emit=lib FILE.dlm -o libNAME.so|libNAME.a [--export=f,grad(g),...]\n"
     << "                                     a library and its C header NAME.h\n"
     << "FILE may be '-' for standard input.\n\n"
     << "OPTIONS:\n"
     << "  --emit=KIND             print the output of one stage and stop:\n";
  for (const EmitKindInfo &info : getEmitKinds()) {
    os << "      " << info.name;
    os.indent(info.name.size() < 10 ? 10 - info.name.size() : 1);
    os << info.description << (info.print ? "" : " (not in this build yet)") << "\n";
  }
  os << "  -o FILE                 write a native executable (with -c: the object file)\n"
     << "  -c, --emit=obj          write an object file (FILE.o unless -o says otherwise)\n"
     << "  --emit=lib              write a library (-o libNAME.so or libNAME.a) of the defs and\n"
     << "                          a C header NAME.h beside it (docs/embedding.md)\n"
     << "  --export=LIST           with --emit=lib: what it exports (default: every def), each\n"
     << "                          [CNAME=]DEF, grad(DEF[, argnums=...]) or value_and_grad(...)\n"
     << "  --aot-cpu=generic|native  the CPU -o/-c code targets: any x86-64 (default) or this\n"
     << "                          machine's (its features, like the JIT)\n";
  printCommonOptionsHelp(os);
  os << "\nEXIT STATUS: 0 ok, 1 error in the program, 2 bad command line, 70 internal error\n";
}

/// Applies --emit=NAME; returns an exit status on error.
static std::optional<int> setEmit(llvm::StringRef name, CompilerOptions &options) {
  const EmitKindInfo *info = findEmitKind(name);
  if (!info) {
    std::string known;
    for (const EmitKindInfo &kind : getEmitKinds())
      known += (known.empty() ? "" : ", ") + kind.name.str();
    return usageError("dlmc",
                      "unknown --emit kind '" + name + "' (expected one of: " + known + ")");
  }
  if (!info->print) {
    llvm::errs() << "dlmc: error: --emit=" << name << " is not available in this build yet\n";
    return ExitUsage;
  }
  options.emit = info->kind;
  return std::nullopt;
}

/// What dlmc writes besides --emit output: nothing, an object file or an executable.
struct OutputOptions {
  std::string path;                   ///< -o
  AotOptions aot;                     ///< -c, --emit=obj, --aot-cpu
  bool library = false;               ///< --emit=lib
  std::optional<std::string> exports; ///< --export
};

/// Parses the command line into `options`; returns an exit status when dlmc should stop.
static std::optional<int> parseArgs(int argc, char **argv, CompilerOptions &options,
                                    OutputOptions &output) {
  bool haveInput = false;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      printHelp(llvm::outs());
      return ExitSuccess;
    }
    if (arg == "--version") {
      printVersion(llvm::outs(), "dlmc");
      return ExitSuccess;
    }
    if (arg == "--emit" || arg == "-o") {
      if (i + 1 == argc)
        return usageError("dlmc", "missing value after '" + arg + "'");
      if (arg == "-o") {
        output.path = argv[++i];
        continue;
      }
      if (llvm::StringRef(argv[i + 1]) == "obj" || llvm::StringRef(argv[i + 1]) == "lib") {
        (llvm::StringRef(argv[++i]) == "obj" ? output.aot.objectOnly : output.library) = true;
        continue;
      }
      if (std::optional<int> status = setEmit(argv[++i], options))
        return status;
      continue;
    }
    if (arg.consume_front("--aot-cpu=")) {
      if (arg != "generic" && arg != "native")
        return usageError("dlmc",
                          "unknown --aot-cpu '" + arg + "' (expected 'generic' or 'native')");
      output.aot.aotCpu = arg.str();
      continue;
    }
    if (arg == "--emit=lib" || arg == "-emit=lib") {
      output.library = true;
      continue;
    }
    if (arg.consume_front("--export=")) {
      output.exports = arg.str();
      continue;
    }
    if (arg == "-c" || arg == "--emit=obj" || arg == "-emit=obj") {
      output.aot.objectOnly = true;
      continue;
    }
    if (arg.consume_front("--emit=") || arg.consume_front("-emit=")) {
      if (std::optional<int> status = setEmit(arg, options))
        return status;
      continue;
    }
    std::string error;
    OptionStatus status = parseCommonOption(arg, options, error);
    if (status == OptionStatus::Invalid)
      return usageError("dlmc", error);
    if (status == OptionStatus::Consumed)
      continue;
    if (isOption(arg))
      return usageError("dlmc", "unknown option '" + arg + "'");
    if (haveInput)
      return usageError("dlmc",
                        "more than one input file ('" + options.input + "' and '" + arg + "')");
    options.input = arg.str();
    haveInput = true;
  }
  if (!haveInput)
    return usageError("dlmc", "no input file");
  return std::nullopt;
}

/// The file -o or -c writes: -o's path, else (-c) FILE.o in the current directory.
static std::string outputFile(const CompilerOptions &options, const OutputOptions &output) {
  if (!output.path.empty() || !output.aot.objectOnly)
    return output.path;
  llvm::SmallString<128> stem(
      llvm::sys::path::filename(options.input == "-" ? "stdin.dlm" : options.input));
  llvm::sys::path::replace_extension(stem, "o");
  return stem.str().str();
}

/// Compiles the program ahead of time: an object file or a linked executable.
static int writeOutput(Compilation &compilation, const OutputOptions &output, const char *argv0) {
  return compileAheadOfTime(compilation, output.aot, outputFile(compilation.getOptions(), output),
                            argv0);
}

/// --emit=lib: checks what goes with it and builds the library.
static int buildLibrary(const CompilerOptions &options, const OutputOptions &output,
                        const char *argv0) {
  if (!output.library)
    return usageError("dlmc", "--export needs --emit=lib");
  if (options.emit != EmitKind::None || output.aot.objectOnly)
    return usageError("dlmc", "--emit=lib cannot be combined with another --emit or -c");
  if (output.path.empty())
    return usageError("dlmc", "--emit=lib needs -o libNAME.so or -o libNAME.a");
  if (options.input == "-")
    return usageError("dlmc", "--emit=lib reads a file, not standard input");
  if (output.exports && output.exports->empty())
    return usageError("dlmc", "--export= names nothing");
  llvm::StringRef folder = llvm::sys::path::parent_path(output.path);
  if (!folder.empty() && !llvm::sys::fs::is_directory(folder))
    return usageError("dlmc",
                      "cannot write '" + output.path + "': there is no folder '" + folder + "'");
  LibraryOptions library;
  library.input = options.input;
  library.output = output.path;
  library.exports = output.exports.value_or("");
  library.optLevel = options.optLevel;
  library.aotCpu = output.aot.aotCpu;
  return buildAotLibrary(library, argv0);
}

int main(int argc, char **argv) {
  CompilerOptions options;
  OutputOptions output;
  if (std::optional<int> status = parseArgs(argc, argv, options, output))
    return *status;
  if (output.library || output.exports)
    return buildLibrary(options, output, argv[0]);
  if (options.emit != EmitKind::None && (output.aot.objectOnly || !output.path.empty()))
    return usageError("dlmc",
                      "--emit=KIND prints to standard output; it cannot be combined with -o or -c");
  if (!output.aot.objectOnly && output.path.empty())
    return compileAndThen("dlmc", options);
  // Executables link the CPU runtime only (docs/cuda.md): auto means the CPU for them.
  if (options.device == rt::DeviceRequest::Cuda)
    return usageError("dlmc", "--device=cuda: executables built with -o/-c run on the CPU; "
                              "'dlm run --device=cuda' runs a program on the GPU");
  if (options.device == rt::DeviceRequest::Auto)
    options.device = rt::DeviceRequest::Cpu;
  // `dlmc prog.dlm -o prog.dlm` would replace the program with the executable.
  std::string path = outputFile(options, output);
  if (options.input != "-" && llvm::sys::fs::equivalent(options.input, path))
    return usageError("dlmc", "the output file '" + path +
                                  "' is the input file; writing it would destroy the program");
  // A missing folder would only show up as the linker's "cannot open output file" after compiling.
  llvm::StringRef folder = llvm::sys::path::parent_path(path);
  if (!folder.empty() && !llvm::sys::fs::is_directory(folder))
    return usageError("dlmc", "cannot write '" + path + "': there is no folder '" + folder + "'");
  return compileAndThen("dlmc", options, [&](Compilation &compilation) {
    return writeOutput(compilation, output, argv[0]);
  });
}
