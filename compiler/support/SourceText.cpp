//===- compiler/support/SourceText.cpp - ANTLR positions to SMLocs --------===//
#include "compiler/support/SourceText.h"

#include "llvm/Support/ConvertUTF.h"

namespace dlm {

static bool isASCII(llvm::StringRef s) {
  for (unsigned char c : s)
    if (c >= 0x80)
      return false;
  return true;
}

SourceText::SourceText(llvm::StringRef buffer) : text(buffer) {
  text.consume_front("\xEF\xBB\xBF");
  if (isASCII(text))
    return;
  byteOffsets.reserve(text.size() + 1);
  for (size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) // not a continuation byte
      byteOffsets.push_back(static_cast<uint32_t>(i));
  byteOffsets.push_back(static_cast<uint32_t>(text.size()));
}

llvm::SMLoc SourceText::getLoc(size_t index) const {
  size_t offset;
  if (byteOffsets.empty())
    offset = std::min(index, text.size());
  else
    offset = byteOffsets[std::min(index, byteOffsets.size() - 1)];
  return llvm::SMLoc::getFromPointer(text.data() + offset);
}

llvm::SMRange SourceText::getRange(size_t start, size_t stop) const {
  if (stop < start || stop == static_cast<size_t>(-1))
    return llvm::SMRange(getLoc(start), getLoc(start));
  return llvm::SMRange(getLoc(start), getLoc(stop + 1));
}

std::optional<size_t> findInvalidUTF8(llvm::StringRef buffer) {
  const auto *begin = reinterpret_cast<const llvm::UTF8 *>(buffer.data());
  const llvm::UTF8 *cursor = begin;
  if (llvm::isLegalUTF8String(&cursor, begin + buffer.size()))
    return std::nullopt;
  return static_cast<size_t>(cursor - begin);
}

} // namespace dlm
