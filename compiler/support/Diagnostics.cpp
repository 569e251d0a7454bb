//===- compiler/support/Diagnostics.cpp - The one diagnostics engine ------===//
//
// Printing is llvm::SourceMgr's (file:line:col, source line, caret and ~~~ ranges, colour via
// WithColor); this file adds counting, the error limit, colour policy and verify mode.
//
//===----------------------------------------------------------------------===//
#include "compiler/support/Diagnostics.h"
#include "compiler/support/SourceText.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace dlm {

llvm::StringRef diagKindName(DiagKind kind) {
  switch (kind) {
  case DiagKind::Error:
    return "error";
  case DiagKind::Warning:
    return "warning";
  case DiagKind::Note:
    return "note";
  }
  return "error";
}

static llvm::SourceMgr::DiagKind toSourceMgrKind(DiagKind kind) {
  switch (kind) {
  case DiagKind::Error:
    return llvm::SourceMgr::DK_Error;
  case DiagKind::Warning:
    return llvm::SourceMgr::DK_Warning;
  case DiagKind::Note:
    return llvm::SourceMgr::DK_Note;
  }
  return llvm::SourceMgr::DK_Error;
}

DiagnosticEngine::DiagnosticEngine(llvm::raw_ostream &os, std::string toolName)
    : os(os), toolName(std::move(toolName)) {}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

unsigned DiagnosticEngine::addBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  return sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
}

unsigned DiagnosticEngine::addBuffer(llvm::StringRef contents, llvm::StringRef name) {
  return addBuffer(llvm::MemoryBuffer::getMemBufferCopy(contents, name));
}

std::optional<unsigned> DiagnosticEngine::addFile(llvm::StringRef path, llvm::SMRange importLoc) {
  auto fail = [&](const llvm::Twine &message) -> std::optional<unsigned> {
    if (importLoc.isValid())
      error(importLoc, message);
    else
      error(message);
    return std::nullopt;
  };
  if (llvm::sys::fs::is_directory(path))
    return fail("'" + path + "' is a directory, not a source file");
  auto buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/true);
  if (std::error_code ec = buffer.getError()) {
    if (ec == llvm::errc::no_such_file_or_directory)
      return fail("no such file or directory: '" + path + "'");
    return fail("cannot read '" + path + "': " + ec.message());
  }
  return addBuffer(std::move(*buffer));
}

unsigned DiagnosticEngine::findBuffer(llvm::SMLoc loc) const {
  if (!loc.isValid())
    return 0;
  return sourceMgr.FindBufferContainingLoc(loc);
}

const std::vector<const char *> &DiagnosticEngine::getLineStarts(unsigned buffer) const {
  if (lineStarts.size() <= buffer)
    lineStarts.resize(buffer + 1);
  std::vector<const char *> &starts = lineStarts[buffer];
  if (!starts.empty())
    return starts;
  llvm::StringRef text = sourceMgr.getMemoryBuffer(buffer)->getBuffer();
  starts.push_back(text.data());
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      starts.push_back(text.data() + i + 1);
  return starts;
}

std::pair<unsigned, unsigned> DiagnosticEngine::getLineAndColumn(llvm::SMLoc loc) const {
  unsigned buffer = findBuffer(loc);
  if (buffer == 0)
    return {0, 0};
  const std::vector<const char *> &starts = getLineStarts(buffer);
  auto next = std::upper_bound(starts.begin(), starts.end(), loc.getPointer());
  unsigned line = static_cast<unsigned>(next - starts.begin());
  return {line, static_cast<unsigned>(loc.getPointer() - starts[line - 1]) + 1};
}

llvm::StringRef DiagnosticEngine::getBufferName(llvm::SMLoc loc) const {
  unsigned buffer = findBuffer(loc);
  if (buffer == 0)
    return "";
  return sourceMgr.getMemoryBuffer(buffer)->getBufferIdentifier();
}

//===----------------------------------------------------------------------===//
// Reporting
//===----------------------------------------------------------------------===//

bool DiagnosticEngine::error(llvm::SMRange range, const llvm::Twine &message) {
  report(DiagKind::Error, range, message);
  return false;
}

bool DiagnosticEngine::error(llvm::SMLoc loc, const llvm::Twine &message) {
  return error(llvm::SMRange(loc, loc), message);
}

bool DiagnosticEngine::error(const llvm::Twine &message) { return error(llvm::SMRange(), message); }

void DiagnosticEngine::warning(llvm::SMRange range, const llvm::Twine &message) {
  report(DiagKind::Warning, range, message);
}

void DiagnosticEngine::warning(const llvm::Twine &message) { warning(llvm::SMRange(), message); }

void DiagnosticEngine::note(llvm::SMRange range, const llvm::Twine &message) {
  report(DiagKind::Note, range, message);
}

void DiagnosticEngine::note(const llvm::Twine &message) { note(llvm::SMRange(), message); }

void DiagnosticEngine::report(DiagKind kind, llvm::SMRange range, const llvm::Twine &message) {
  diagnostics.push_back(Diagnostic{kind, range, message.str()});
  if (kind == DiagKind::Error)
    ++numErrors;
  if (kind == DiagKind::Warning)
    ++numWarnings;
  if (verifyMode)
    return;
  if (kind != DiagKind::Note)
    lastSuppressed = errorLimit != 0 && numErrors > errorLimit;
  if (!lastSuppressed) {
    print(diagnostics.back());
    return;
  }
  if (!limitReported) {
    limitReported = true;
    print(Diagnostic{DiagKind::Error, {}, "too many errors emitted, further errors are not shown"});
  }
}

bool DiagnosticEngine::showColors() const {
  switch (colorMode) {
  case ColorMode::Always:
    return true;
  case ColorMode::Never:
    return false;
  case ColorMode::Auto:
    break;
  }
  const char *noColor = std::getenv("NO_COLOR");
  if (noColor && *noColor)
    return false;
  return os.has_colors();
}

namespace {

/// Passes everything to another stream but claims to be a colour terminal: how
/// ColorMode::Always gets colour out of SourceMgr, which colours only terminals.
class ForcedColorStream : public llvm::raw_ostream {
public:
  explicit ForcedColorStream(llvm::raw_ostream &out) : out(out) {
    SetUnbuffered();
    enable_colors(true);
  }
  bool has_colors() const override { return true; }

private:
  void write_impl(const char *data, size_t size) override { out.write(data, size); }
  uint64_t current_pos() const override { return out.tell(); }

  llvm::raw_ostream &out;
};

} // namespace

/// Lines longer than this are shown as a window around the caret.
static constexpr size_t kMaxShownLine = 240;
static constexpr size_t kWindowBefore = 80;

void DiagnosticEngine::print(const Diagnostic &diag) {
  if (colorMode != ColorMode::Always)
    return printTo(os, diag);
  ForcedColorStream forced(os);
  printTo(forced, diag);
}

void DiagnosticEngine::printTo(llvm::raw_ostream &out, const Diagnostic &diag) {
  if (printHook && printHook(diag, out, showColors()))
    return;
  llvm::SourceMgr::DiagKind kind = toSourceMgrKind(diag.kind);
  if (!diag.range.Start.isValid()) {
    sourceMgr.PrintMessage(out, llvm::SMDiagnostic(toolName, kind, diag.message), showColors());
    return;
  }
  unsigned buffer = findBuffer(diag.range.Start);
  const std::vector<const char *> &starts = getLineStarts(buffer);
  unsigned line = getLineAndColumn(diag.range.Start).first;
  const char *bufferEnd = sourceMgr.getMemoryBuffer(buffer)->getBufferEnd();
  const char *lineEnd = line < starts.size() ? starts[line] - 1 : bufferEnd;
  llvm::StringRef lineText(starts[line - 1], lineEnd - starts[line - 1]);
  if (lineText.size() > kMaxShownLine || findInvalidUTF8(lineText))
    return printWindowed(out, diag, lineText);
  llvm::SmallVector<llvm::SMRange, 1> ranges;
  if (diag.range.End.isValid() && diag.range.End.getPointer() > diag.range.Start.getPointer())
    ranges.push_back(diag.range);
  sourceMgr.PrintMessage(out, sourceMgr.GetMessage(diag.range.Start, kind, diag.message, ranges),
                         showColors());
}

void DiagnosticEngine::printWindowed(llvm::raw_ostream &out, const Diagnostic &diag,
                                     llvm::StringRef lineText) {
  auto [line, column] = getLineAndColumn(diag.range.Start);
  bool colors = showColors();
  llvm::ColorMode mode = colors ? llvm::ColorMode::Enable : llvm::ColorMode::Disable;
  {
    llvm::WithColor bold(out, llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true, /*BG=*/false, mode);
    out << getBufferName(diag.range.Start) << ":" << line << ":" << column << ": ";
  }
  switch (diag.kind) {
  case DiagKind::Error:
    llvm::WithColor::error(out, "", !colors);
    break;
  case DiagKind::Warning:
    llvm::WithColor::warning(out, "", !colors);
    break;
  case DiagKind::Note:
    llvm::WithColor::note(out, "", !colors);
    break;
  }
  llvm::WithColor(out, llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true, /*BG=*/false, mode)
      << diag.message << "\n";
  size_t caret = column - 1;
  size_t first = caret > kWindowBefore ? caret - kWindowBefore : 0;
  llvm::StringRef window = lineText.substr(first, kMaxShownLine / 2);
  std::string shown = first ? "..." : "";
  for (char c : window) // one byte per column: bytes outside printable ASCII become '?'
    shown += (c >= ' ' && c < 0x7f) ? c : (c == '\t' ? ' ' : '?');
  if (first + window.size() < lineText.size())
    shown += "...";
  out << shown << "\n";
  size_t caretColumn = caret - first + (first ? 3 : 0);
  size_t width =
      diag.range.End.isValid() ? diag.range.End.getPointer() - diag.range.Start.getPointer() : 1;
  width =
      std::max<size_t>(1, std::min(width, window.size() - std::min(window.size(), caret - first)));
  llvm::WithColor(out, llvm::raw_ostream::GREEN, /*Bold=*/true, /*BG=*/false, mode)
      << std::string(caretColumn, ' ') << "^" << std::string(width - 1, '~') << "\n";
}

void DiagnosticEngine::printSummary() {
  if (verifyMode || (numErrors == 0 && numWarnings == 0))
    return;
  auto plural = [](unsigned n, llvm::StringRef word) {
    return std::to_string(n) + " " + word.str() + (n == 1 ? "" : "s");
  };
  std::string line;
  if (numWarnings != 0)
    line = plural(numWarnings, "warning");
  if (numWarnings != 0 && numErrors != 0)
    line += " and ";
  if (numErrors != 0)
    line += plural(numErrors, "error");
  os << line << " generated\n";
  os.flush();
}

//===----------------------------------------------------------------------===//
// Verify mode
//===----------------------------------------------------------------------===//

namespace {

/// One `expected-<kind>[@+N|@-N] {{text}}` comment.
struct Expectation {
  DiagKind kind;
  unsigned buffer;
  unsigned line;
  std::string text;
  llvm::SMRange commentRange;
  bool matched = false;
};

std::optional<DiagKind> parseKindWord(llvm::StringRef &rest) {
  for (DiagKind kind : {DiagKind::Error, DiagKind::Warning, DiagKind::Note})
    if (rest.consume_front(diagKindName(kind)))
      return kind;
  return std::nullopt;
}

/// Parses one expectation starting right after "expected-" in `rest` (which it advances).
/// Returns false (and reports) on a malformed expectation.
bool parseExpectation(DiagnosticEngine &diag, llvm::StringRef &rest, unsigned buffer, unsigned line,
                      const char *begin, std::vector<Expectation> &out) {
  std::optional<DiagKind> kind = parseKindWord(rest);
  if (!kind)
    return true; // "expected-" followed by something else: not an expectation
  int offset = 0;
  if (rest.consume_front("@")) {
    bool negative = rest.starts_with("-");
    if (!rest.consume_front("+") && !rest.consume_front("-"))
      return diag.error(llvm::SMLoc::getFromPointer(rest.data()),
                        "expected '@+N' or '@-N' in expected-" + diagKindName(*kind));
    unsigned magnitude = 0;
    if (rest.consumeInteger(10, magnitude))
      return diag.error(llvm::SMLoc::getFromPointer(rest.data()), "expected a line offset");
    offset = negative ? -static_cast<int>(magnitude) : static_cast<int>(magnitude);
  }
  rest = rest.ltrim(" \t");
  if (!rest.consume_front("{{"))
    return diag.error(llvm::SMLoc::getFromPointer(rest.data()),
                      "expected '{{' in expected-" + diagKindName(*kind));
  size_t close = rest.find("}}");
  if (close == llvm::StringRef::npos)
    return diag.error(llvm::SMLoc::getFromPointer(rest.data()),
                      "expected '}}' to end the expected-" + diagKindName(*kind));
  llvm::SMRange range(llvm::SMLoc::getFromPointer(begin),
                      llvm::SMLoc::getFromPointer(rest.data() + close + 2));
  out.push_back(Expectation{*kind, buffer, static_cast<unsigned>(static_cast<int>(line) + offset),
                            rest.substr(0, close).str(), range});
  rest = rest.drop_front(close + 2);
  return true;
}

/// Collects every expectation of one buffer.
bool collectExpectations(DiagnosticEngine &diag, unsigned buffer, std::vector<Expectation> &out) {
  llvm::StringRef text = diag.getSourceMgr().getMemoryBuffer(buffer)->getBuffer();
  bool ok = true;
  unsigned line = 1;
  while (!text.empty()) {
    auto [current, next] = text.split('\n');
    llvm::StringRef rest = current;
    for (size_t at = rest.find("expected-"); at != llvm::StringRef::npos;
         at = rest.find("expected-")) {
      const char *begin = rest.data() + at;
      rest = rest.drop_front(at + strlen("expected-"));
      ok &= parseExpectation(diag, rest, buffer, line, begin, out);
    }
    text = next;
    ++line;
  }
  return ok;
}

} // namespace

bool DiagnosticEngine::verify() {
  std::vector<Diagnostic> captured = std::move(diagnostics);
  diagnostics.clear();
  bool savedVerify = verifyMode;
  verifyMode = false; // mismatches are printed
  std::vector<Expectation> expectations;
  bool ok = true;
  for (unsigned buffer = 1; buffer <= sourceMgr.getNumBuffers(); ++buffer)
    ok &= collectExpectations(*this, buffer, expectations);

  for (const Diagnostic &d : captured) {
    unsigned buffer = findBuffer(d.range.Start);
    unsigned line = buffer ? getLineAndColumn(d.range.Start).first : 0;
    auto match = std::find_if(expectations.begin(), expectations.end(), [&](const Expectation &e) {
      return !e.matched && e.kind == d.kind && e.buffer == buffer && e.line == line &&
             llvm::StringRef(d.message).contains(e.text);
    });
    if (match != expectations.end()) {
      match->matched = true;
      continue;
    }
    ok = false;
    report(DiagKind::Error, d.range, "unexpected " + diagKindName(d.kind) + ": " + d.message);
  }
  for (const Expectation &e : expectations) {
    if (e.matched)
      continue;
    ok = false;
    report(DiagKind::Error, e.commentRange,
           "expected " + diagKindName(e.kind) + " \"" + e.text + "\" was not produced");
  }
  verifyMode = savedVerify;
  return ok;
}

} // namespace dlm
