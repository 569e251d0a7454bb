//===- compiler/driver/CrashGuard.h - Large stack and crash banner --------===//
//
// Every tool runs its compilation through runGuarded: on a thread with a large stack (so the
// recursive walkers of every stage have room for trees up to kMaxNestingDepth deep) inside an
// llvm::CrashRecoveryContext (so a compiler bug — a crash, an assertion, an escaped
// exception — ends with a short banner and exit status 70, never a raw stack dump).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_DRIVER_CRASHGUARD_H
#define DLM_COMPILER_DRIVER_CRASHGUARD_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace dlm {

/// The tools' exit statuses.
enum ExitCode : int {
  ExitSuccess = 0,
  ExitUserError = 1, ///< an error in the program (a diagnostic was printed)
  ExitUsage = 2,     ///< a bad command line
  ExitInternal = 70, ///< a compiler bug (EX_SOFTWARE)
};

/// Stack size of the compilation thread.
constexpr unsigned kCompilerStackBytes = 512u << 20;

/// Runs `body` on a large-stack thread under crash recovery and returns its exit status, or
/// ExitInternal after printing a banner naming `toolName` and `what` (the input) to stderr.
int runGuarded(llvm::StringRef toolName, llvm::StringRef what, llvm::function_ref<int()> body);

/// The stage the guarded thread is in, for the crash banner ("while parsing"); a string
/// literal that outlives the call.
void setCrashContext(const char *stage);

} // namespace dlm

#endif // DLM_COMPILER_DRIVER_CRASHGUARD_H
