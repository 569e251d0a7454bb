//===- compiler/driver/CrashGuard.cpp - Large stack and crash banner ------===//
#include "compiler/driver/CrashGuard.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <exception>

namespace dlm {

static std::atomic<const char *> crashStage{nullptr};

void setCrashContext(const char *stage) { crashStage.store(stage); }

static void printBanner(llvm::StringRef toolName, llvm::StringRef what, llvm::StringRef detail) {
  llvm::errs().flush();
  llvm::errs() << toolName << ": internal compiler error";
  if (const char *stage = crashStage.load())
    llvm::errs() << " while " << stage;
  if (!what.empty())
    llvm::errs() << " '" << what << "'";
  if (!detail.empty())
    llvm::errs() << ": " << detail;
  llvm::errs() << "\n"
               << toolName << ": note: this is a bug in dlm, not in your program; please report it "
               << "with the input file\n";
  llvm::errs().flush();
}

// No mallopt here: setting M_TOP_PAD (or any of glibc's M_TRIM_THRESHOLD, M_MMAP_THRESHOLD,
// M_MMAP_MAX) also freezes malloc's dynamic mmap threshold for the whole process, so every
// tensor buffer over 128 KiB would be mapped and unmapped again at each allocation (page faults
// on every use): bench/jit/mlp_train.dlm ran 1.15 -> 1.49 ms per iteration with the pad.
// tests/frontend/unit/CrashGuardTest.cpp checks the threshold still moves.

int runGuarded(llvm::StringRef toolName, llvm::StringRef what, llvm::function_ref<int()> body) {
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext context;
  int status = ExitInternal;
  std::string exceptionText;
  bool finished = context.RunSafelyOnThread(
      [&] {
        // C++ exceptions (from the ANTLR runtime) must not unwind through LLVM's frames.
        try {
          status = body();
        } catch (const std::exception &e) {
          exceptionText = e.what();
          status = ExitInternal;
        } catch (...) {
          exceptionText = "unknown exception";
          status = ExitInternal;
        }
      },
      kCompilerStackBytes);
  if (!finished) {
    printBanner(toolName, what, "crashed");
    return ExitInternal;
  }
  if (!exceptionText.empty())
    printBanner(toolName, what, "uncaught exception: " + exceptionText);
  return status;
}

} // namespace dlm
