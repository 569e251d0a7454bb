//===- compiler/support/Diagnostics.h - The one diagnostics engine --------===//
//
// Every user-facing error of the compiler goes through one DiagnosticEngine: the parser's
// syntax errors, sema's type and shape errors, and run-time errors that point back into the
// source. It prints clang's format on top of llvm::SourceMgr:
//
//   mlp.dlm:12:9: error: cannot broadcast f32[3, 4] with f32[5]
//       y = a + b
//           ^~~~~
//   mlp.dlm:3:1: note: 'b' defined here
//
// The engine owns the SourceMgr and so every source buffer (the main file and everything it
// imports), which lets any later stage report against any file by SMLoc.
//
// Verify mode (MLIR's -verify-diagnostics): instead of printing, diagnostics are captured and
// compared with inline expectations in the source buffers:
//   x = (1 +       # expected-error {{expected expression}}
//   # expected-error@+1 {{substring of the message}}
//   # expected-note@-2 {{...}}     # expected-warning {{...}}
// verify() reports every expectation that was not produced and every diagnostic that was not
// expected; a run passes iff it returns true.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_SUPPORT_DIAGNOSTICS_H
#define DLM_COMPILER_SUPPORT_DIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dlm {

enum class DiagKind : uint8_t { Error, Warning, Note };

/// The spelling used in messages and expectations: "error", "warning", "note".
llvm::StringRef diagKindName(DiagKind kind);

/// Whether diagnostics are coloured. Auto colours only when the stream is a terminal and the
/// NO_COLOR environment variable is unset or empty.
enum class ColorMode : uint8_t { Auto, Always, Never };

/// One reported diagnostic, as captured in verify mode (and kept for tests).
struct Diagnostic {
  DiagKind kind;
  llvm::SMRange range; ///< invalid (default) for diagnostics without a location
  std::string message;
};

class DiagnosticEngine {
public:
  /// Prints to `os` (stderr by default). `toolName` prefixes diagnostics that have no
  /// source location: "dlmc: error: no such file or directory: 'x.dlm'".
  explicit DiagnosticEngine(llvm::raw_ostream &os = llvm::errs(), std::string toolName = "dlm");
  DiagnosticEngine(const DiagnosticEngine &) = delete;
  DiagnosticEngine &operator=(const DiagnosticEngine &) = delete;

  // --- Sources ---------------------------------------------------------------------------

  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }
  const llvm::SourceMgr &getSourceMgr() const { return sourceMgr; }

  /// Takes ownership of a buffer and returns its SourceMgr buffer ID (never 0).
  unsigned addBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer);
  /// Adds an in-memory source under a file name (tests, the REPL).
  unsigned addBuffer(llvm::StringRef contents, llvm::StringRef name);
  /// Reads a source file. On failure reports a located error at `importLoc` when given (an
  /// `import` statement) or an unlocated one otherwise — "no such file or directory: 'x'",
  /// "'x' is a directory, not a source file" — and returns nullopt.
  std::optional<unsigned> addFile(llvm::StringRef path, llvm::SMRange importLoc = {});
  /// The buffer ID containing `loc`, 0 when none does.
  unsigned findBuffer(llvm::SMLoc loc) const;
  /// 1-based line and column of a location (column counted in bytes).
  std::pair<unsigned, unsigned> getLineAndColumn(llvm::SMLoc loc) const;
  /// The identifier of the buffer containing `loc` (the file name it was added under).
  llvm::StringRef getBufferName(llvm::SMLoc loc) const;

  // --- Reporting ----------------------------------------------------------------------------

  /// Reports an error at a range (a caret and ~~~ under it). Returns false so that callers
  /// can write `return diag.error(r, "...")` in functions returning bool success.
  bool error(llvm::SMRange range, const llvm::Twine &message);
  bool error(llvm::SMLoc loc, const llvm::Twine &message);
  /// An error without a source location (files, command line).
  bool error(const llvm::Twine &message);
  void warning(llvm::SMRange range, const llvm::Twine &message);
  void warning(const llvm::Twine &message);
  /// A note attached to the last error or warning (printed right after it; dropped when that
  /// diagnostic was suppressed by the error limit).
  void note(llvm::SMRange range, const llvm::Twine &message);
  void note(const llvm::Twine &message);
  /// Reports any diagnostic.
  void report(DiagKind kind, llvm::SMRange range, const llvm::Twine &message);

  unsigned getNumErrors() const { return numErrors; }
  unsigned getNumWarnings() const { return numWarnings; }
  bool hasErrors() const { return numErrors != 0; }

  /// After this many errors further ones are counted but not printed, and a single
  /// "too many errors emitted" line is printed instead. 0 means no limit (the default).
  void setErrorLimit(unsigned limit) { errorLimit = limit; }
  void setColorMode(ColorMode mode) { colorMode = mode; }
  /// Whether colour is on for the output stream, resolving Auto.
  bool showColors() const;

  /// Called with each diagnostic the engine is about to print, its output stream and whether
  /// colour is on; returning true means the hook printed it instead. The REPL shows a note
  /// about a variable it restored without the restoring line it wrote itself.
  using PrintHook = std::function<bool(const Diagnostic &diag, llvm::raw_ostream &os, bool colors)>;
  void setPrintHook(PrintHook hook) { printHook = std::move(hook); }

  /// Prints "1 error generated" / "N errors generated" (or the warning count) when anything
  /// was reported; prints nothing in verify mode or when nothing was reported.
  void printSummary();

  // --- Verify mode --------------------------------------------------------------------------

  /// In verify mode diagnostics are captured, not printed.
  void setVerifyMode(bool on) { verifyMode = on; }
  bool isVerifyMode() const { return verifyMode; }
  /// Compares the captured diagnostics with the expected-* comments of every buffer, prints
  /// each mismatch as an error and returns true iff everything matched.
  bool verify();

  /// Every diagnostic reported so far, in order (captured in both modes).
  const std::vector<Diagnostic> &getDiagnostics() const { return diagnostics; }

private:
  void print(const Diagnostic &diag);
  void printTo(llvm::raw_ostream &out, const Diagnostic &diag);
  /// Prints a diagnostic on a line too long (or not UTF-8) for SourceMgr: a window of the
  /// line around the caret.
  void printWindowed(llvm::raw_ostream &out, const Diagnostic &diag, llvm::StringRef lineText);
  /// The start of every line of a buffer, computed once per buffer: SourceMgr's own column
  /// computation scans back to the line start, which is quadratic over a long line.
  const std::vector<const char *> &getLineStarts(unsigned buffer) const;

  mutable std::vector<std::vector<const char *>> lineStarts; ///< indexed by buffer ID

  llvm::SourceMgr sourceMgr;
  llvm::raw_ostream &os;
  std::string toolName;
  std::vector<Diagnostic> diagnostics;
  unsigned numErrors = 0;
  unsigned numWarnings = 0;
  unsigned errorLimit = 0;
  bool lastSuppressed = false;
  bool limitReported = false;
  bool verifyMode = false;
  ColorMode colorMode = ColorMode::Auto;
  PrintHook printHook;
};

} // namespace dlm

#endif // DLM_COMPILER_SUPPORT_DIAGNOSTICS_H
