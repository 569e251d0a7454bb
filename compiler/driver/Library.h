//===- compiler/driver/Library.h - dlmc --emit=lib: AOT libraries ----------===//
//
// `dlmc --emit=lib FILE.dlm -o libNAME.so` (or `.a`; `--export=f,grad(loss),...` chooses what)
// compiles defs and their gradients ahead of time into a library that links the runtime alone,
// and writes `NAME.h` beside it with one typed C function per export (docs/embedding.md "AOT
// libraries"). Each export is an entry graph (Entry.h) at the types its def's annotations fix,
// compiled into an object file of its own (codegen::emitEntryObject); a generated C file holds
// the typed functions, which pass their pointers to the runtime's dlm_lib_call
// (runtime/AotLibrary.h).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_DRIVER_LIBRARY_H
#define DLM_COMPILER_DRIVER_LIBRARY_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace dlm {

struct LibraryOptions {
  std::string input;  ///< the .dlm file
  std::string output; ///< libNAME.so or libNAME.a
  /// --export's value as written ("" exports every def of the main file): a comma-separated
  /// list of `[cname=]def`, `[cname=]grad(def[, argnums=N|(N, ...)])` or value_and_grad(...).
  std::string exports;
  unsigned optLevel = 2;
  std::string aotCpu = "generic";
};

/// Builds the library and its header. Diagnostics go to stderr; returns the exit status: 0, 1
/// after an error in the program or an export it cannot have, 2 for a malformed --export or
/// output name, 70 after an internal error.
int buildAotLibrary(const LibraryOptions &options, llvm::StringRef toolPath);

} // namespace dlm

#endif // DLM_COMPILER_DRIVER_LIBRARY_H
