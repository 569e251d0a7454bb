//===- compiler/ir/ErrorReport.cpp - Where a run-time error points --------===//
//
// The scheme is documented in ErrorReport.h and docs/runtime.md.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/ErrorReport.h"

#include "compiler/support/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"

namespace dlm::graph {
namespace {

std::string positionText(const Location &loc) {
  if (!loc.isKnown())
    return "<unknown>";
  return std::string(loc.file) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

bool samePosition(const Location &a, const Location &b) {
  return a.file == b.file && a.line == b.line && a.col == b.col;
}

/// One position of the chain and the function whose body holds it ("" for the top level).
struct ChainFrame {
  Location at;
  std::string_view function;
};

} // namespace

ErrorReport describeError(const Graph &g, const Location &loc) {
  ErrorReport report;
  report.at = loc;
  if (!loc.gradOf.empty())
    report.prefix =
        "in the gradient of '" + std::string(loc.gradOf) + "' at " + positionText(loc) + ": ";
  // frames[0] is the node's own position, frames.back() the top-level call it was reached from.
  std::vector<ChainFrame> frames;
  Location at = loc;
  while (at.inlinedAt != kNoCallSite) {
    const CallSite &call = g.callSite(at.inlinedAt);
    frames.push_back({at, call.function});
    at = call.at;
  }
  frames.push_back({at, {}});
  if (frames.size() == 1)
    return report;
  std::string_view mainFile;
  for (auto f = frames.rbegin(); f != frames.rend() && mainFile.empty(); ++f)
    if (f->at.isKnown())
      mainFile = f->at.file;
  size_t user = 0;
  while (user < frames.size() && !(frames[user].at.isKnown() && frames[user].at.file == mainFile))
    ++user;
  if (user == frames.size())
    return report; // no position is known
  report.at = frames[user].at;
  report.at.inlinedAt = kNoCallSite;
  report.at.gradOf = loc.gradOf;
  // A note at the position of the one before it says nothing new (a compiler-made wrapper's
  // call, placed at its caller's call).
  const Location *last = &report.at;
  auto add = [&](const ChainFrame &f, std::string message) {
    if (!f.at.isKnown() || samePosition(f.at, *last))
      return;
    report.notes.push_back({f.at, std::move(message)});
    report.notes.back().at.inlinedAt = kNoCallSite;
    report.notes.back().at.gradOf = {};
    last = &f.at;
  };
  for (size_t k = user; k-- > 0;)
    add(frames[k], "inside '" + std::string(frames[k].function) + "'");
  last = &report.at; // the callers' notes go outwards from the user's line
  for (size_t k = user + 1; k < frames.size(); ++k)
    add(frames[k], "'" + std::string(frames[k - 1].function) + "' called here");
  return report;
}

llvm::SMLoc findSourceLoc(DiagnosticEngine &diags, std::string_view file, unsigned line,
                          unsigned col) {
  if (line == 0)
    return {};
  llvm::SourceMgr &sm = diags.getSourceMgr();
  unsigned buffer = 0;
  for (unsigned i = 1; i <= sm.getNumBuffers() && buffer == 0; ++i)
    if (sm.getMemoryBuffer(i)->getBufferIdentifier() == llvm::StringRef(file.data(), file.size()))
      buffer = i;
  if (buffer == 0) {
    auto contents = llvm::MemoryBuffer::getFile(llvm::StringRef(file.data(), file.size()));
    if (!contents)
      return {};
    buffer = diags.addBuffer(std::move(*contents));
  }
  return sm.FindLocForLineAndColumn(buffer, line, col);
}

void reportError(DiagnosticEngine &diags, const Location &at, const std::string &message,
                 const std::vector<ErrorNote> &notes) {
  auto report = [&](DiagKind kind, const Location &loc, const std::string &text) {
    llvm::SMLoc where = findSourceLoc(diags, loc.file, loc.line, loc.col);
    if (where.isValid())
      diags.report(kind, llvm::SMRange(where, where), text);
    else if (loc.isKnown())
      diags.report(kind, {}, positionText(loc) + ": " + text);
    else
      diags.report(kind, {}, text);
  };
  report(DiagKind::Error, at, message);
  for (const ErrorNote &note : notes)
    report(DiagKind::Note, note.at, note.message);
}

} // namespace dlm::graph
