//===- compiler/support/SourceText.h - ANTLR positions to SMLocs ----------===//
//
// ANTLR counts positions in code points; the DiagnosticEngine's SourceMgr counts bytes. A
// SourceText is the text handed to ANTLR (the buffer minus a UTF-8 byte-order mark) plus the
// table that maps a code-point index back to a pointer into the buffer. For pure-ASCII files
// (the common case) the table is empty and the mapping is an addition. The frontend maps
// ANTLR's token positions with it; findInvalidUTF8 also tells the DiagnosticEngine when a
// source line cannot be shown with a caret.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_SUPPORT_SOURCETEXT_H
#define DLM_COMPILER_SUPPORT_SOURCETEXT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace dlm {

class SourceText {
public:
  /// `buffer` must be valid UTF-8 (see findInvalidUTF8) and outlive this object.
  explicit SourceText(llvm::StringRef buffer);

  /// The text ANTLR lexes (the buffer without a leading byte-order mark).
  llvm::StringRef getText() const { return text; }
  /// The location of code point `index`; an index past the end maps to the end of the buffer.
  llvm::SMLoc getLoc(size_t index) const;
  /// The range of code points [start, stop] (inclusive, as ANTLR reports tokens). A token
  /// with stop < start (a synthesized INDENT, DEDENT or EOF) gives an empty range at start.
  llvm::SMRange getRange(size_t start, size_t stop) const;
  /// Number of code points.
  size_t size() const { return byteOffsets.empty() ? text.size() : byteOffsets.size() - 1; }

private:
  llvm::StringRef text;
  /// byteOffsets[i] = byte offset of code point i in text; one extra entry for the end.
  /// Empty when the text is ASCII.
  std::vector<uint32_t> byteOffsets;
};

/// The byte offset of the first invalid UTF-8 sequence in `buffer`, or nullopt.
std::optional<size_t> findInvalidUTF8(llvm::StringRef buffer);

} // namespace dlm

#endif // DLM_COMPILER_SUPPORT_SOURCETEXT_H
