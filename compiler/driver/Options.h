//===- compiler/driver/Options.h - Command-line options shared by the tools ===//
//
// Hand-rolled parsing (llvm::cl's global registry would mix every library's options into the
// tools' --help). Options shared by dlmc and `dlm run` are parsed here; each tool handles its
// own (dlmc's --emit, dlm's --engine) and its positional arguments.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_DRIVER_OPTIONS_H
#define DLM_COMPILER_DRIVER_OPTIONS_H

#include "compiler/driver/Compilation.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace dlm {

enum class OptionStatus { Consumed, NotMine, Invalid };

/// Parses one shared option: -O0..-O3, --print-after-all, --verify-diagnostics,
/// --color=auto|always|never, --no-color. On Invalid, `error` says why.
OptionStatus parseCommonOption(llvm::StringRef arg, CompilerOptions &options, std::string &error);

/// The help lines of the shared options.
void printCommonOptionsHelp(llvm::raw_ostream &os);

/// "dlmc 0.1.0 (LLVM 19.1.7)"-style version text, with a newline.
void printVersion(llvm::raw_ostream &os, llvm::StringRef tool);

/// Prints "tool: error: message" and a pointer to --help to stderr; returns ExitUsage.
int usageError(llvm::StringRef tool, const llvm::Twine &message);

/// True when `arg` looks like an option (starts with '-' and is not "-", stdin).
bool isOption(llvm::StringRef arg);

} // namespace dlm

#endif // DLM_COMPILER_DRIVER_OPTIONS_H
