//===- compiler/frontend/IndentingTokenizer.cpp - INDENT/DEDENT and line joining ===//
#include "compiler/frontend/IndentingTokenizer.h"

#include "CommonToken.h"
#include "DlmParser.h"

#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace dlm {

using grammar::DlmLexer;

namespace {

bool isLayoutToken(size_t type) {
  return type == DlmLexer::NEWLINE || type == grammar::DlmParser::INDENT ||
         type == grammar::DlmParser::DEDENT;
}

/// The bracket that closes `open`, and its spelling.
size_t closerOf(size_t open) {
  return open == DlmLexer::LPAREN ? DlmLexer::RPAREN : DlmLexer::RBRACK;
}
const char *spelling(size_t bracket) {
  switch (bracket) {
  case DlmLexer::LPAREN:
    return "(";
  case DlmLexer::RPAREN:
    return ")";
  case DlmLexer::LBRACK:
    return "[";
  default:
    return "]";
  }
}

/// The message for a character no token starts with.
std::string strayCharacterMessage(const std::string &text) {
  if (text.size() == 1 && text[0] == '\0')
    return "null byte in source file";
  if (text == ";")
    return "unexpected ';' (dlm has one statement per line)";
  if (text == "\\")
    return "unexpected '\\': a line continuation must end the line";
  if (text.size() == 1 && text[0] > ' ' && text[0] < 0x7f)
    return "unexpected character '" + text + "'";
  const auto *cursor = reinterpret_cast<const llvm::UTF8 *>(text.data());
  llvm::UTF32 codePoint = 0;
  llvm::convertUTF8Sequence(&cursor, cursor + text.size(), &codePoint, llvm::strictConversion);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "unexpected character U+" << llvm::format_hex_no_prefix(codePoint, 4, /*Upper=*/true);
  if (codePoint >= 0x80)
    os << " '" << text << "'";
  return out;
}

} // namespace

std::unique_ptr<antlr4::Token> IndentingTokenizer::nextToken() {
  while (pending.empty())
    lexOne();
  std::unique_ptr<antlr4::Token> token = std::move(pending.front());
  pending.pop_front();
  return token;
}

void IndentingTokenizer::lexOne() {
  if (finished) {
    pushSynthetic(antlr4::Token::EOF, endIndex, "<EOF>");
    return;
  }
  std::unique_ptr<antlr4::Token> raw = DlmLexer::nextToken();
  size_t type = raw->getType();
  bool firstContent =
      lastType == 0 && type != antlr4::Token::EOF && type != NEWLINE && type != ERRCHAR;
  if (firstContent && raw->getCharPositionInLine() != levels.front().column)
    error(raw->getStartIndex(), raw->getStopIndex(),
          raw->getCharPositionInLine() > levels.front().column
              ? "unexpected indent"
              : "unindent does not match any outer indentation level");
  switch (type) {
  case antlr4::Token::EOF:
    return onEndOfFile(std::move(raw));
  case NEWLINE:
    return onNewline(std::move(raw));
  case LPAREN:
  case LBRACK:
    return onOpenBracket(std::move(raw));
  case RPAREN:
  case RBRACK:
    return onCloseBracket(std::move(raw));
  case ERRCHAR:
    return onStrayCharacter(*raw);
  case UNTERMINATED_STRING:
    error(raw->getStartIndex(), raw->getStopIndex(), "unterminated string literal");
    static_cast<antlr4::CommonToken *>(raw.get())->setType(STRING);
    return push(std::move(raw));
  default:
    return push(std::move(raw));
  }
}

void IndentingTokenizer::onNewline(std::unique_ptr<antlr4::Token> raw) {
  if (!brackets.empty() || lastType == 0)
    return; // implicit line joining, or nothing but blank lines so far
  // The first line break after code ends the logical line; blank and comment-only lines
  // after it change nothing, and the indentation of the next line with code decides.
  if (!isLayoutToken(lastType))
    pushSynthetic(NEWLINE, raw->getStartIndex(), "\n", /*width=*/1);
  size_t next = _input->LA(1);
  if (next == '\n' || next == '\r' || next == '#' || next == antlr4::Token::EOF)
    return;
  unsigned column = indentationOf(*raw);
  changeIndentation(column, raw->getStopIndex() + 1);
}

unsigned IndentingTokenizer::indentationOf(const antlr4::Token &newline) {
  std::string text = newline.getText();
  unsigned column = 0;
  bool tabReported = false;
  for (size_t i = 0; i < text.size(); ++i) {
    switch (text[i]) {
    case ' ':
      ++column;
      break;
    case '\f':
      column = 0;
      break;
    case '\t':
      if (!tabReported)
        error(newline.getStartIndex() + i, newline.getStartIndex() + i - 1, // caret only
              "tab in indentation (use spaces)");
      tabReported = true;
      break;
    default:
      break; // the line break itself
    }
  }
  // After a tab the intended depth is unknowable; staying in the current block lets the
  // parser go on without a cascade of indentation errors.
  return tabReported ? levels.back().column : column;
}

void IndentingTokenizer::changeIndentation(unsigned column, size_t contentStart) {
  if (column > levels.back().column) {
    if (levels.size() > kMaxIndentDepth) {
      error(contentStart, contentStart,
            "too deeply nested: more than " + std::to_string(kMaxIndentDepth) + " indented blocks",
            /*fatal=*/true);
      return stopLexing(contentStart);
    }
    levels.push_back({column, false});
    return pushSynthetic(grammar::DlmParser::INDENT, contentStart, "<INDENT>");
  }
  while (levels.size() > 1 && column < levels.back().column) {
    bool synthetic = levels.back().synthetic;
    levels.pop_back();
    if (!synthetic)
      pushSynthetic(grammar::DlmParser::DEDENT, contentStart, "<DEDENT>");
  }
  if (column == levels.back().column)
    return;
  error(contentStart, contentStart, "unindent does not match any outer indentation level");
  if (column > levels.back().column) // between two levels; left of the top level stays there
    levels.push_back({column, true});
}

void IndentingTokenizer::onEndOfFile(std::unique_ptr<antlr4::Token> raw) {
  finished = true;
  endIndex = raw->getStartIndex();
  if (!brackets.empty()) {
    const OpenBracket &open = brackets.back();
    error(open.start, open.start, std::string("'") + spelling(open.type) + "' was never closed",
          /*fatal=*/true);
    brackets.clear();
  }
  if (lastType != 0 && !isLayoutToken(lastType))
    pushSynthetic(NEWLINE, endIndex, "");
  for (; levels.size() > 1; levels.pop_back())
    if (!levels.back().synthetic)
      pushSynthetic(grammar::DlmParser::DEDENT, endIndex, "<DEDENT>");
  push(std::move(raw));
}

void IndentingTokenizer::stopLexing(size_t at) {
  brackets.clear();
  auto eof = std::make_unique<antlr4::CommonToken>(std::make_pair(this, _input), antlr4::Token::EOF,
                                                   DEFAULT_TOKEN_CHANNEL, at, at - 1);
  eof->setText("<EOF>");
  onEndOfFile(std::move(eof));
}

void IndentingTokenizer::onOpenBracket(std::unique_ptr<antlr4::Token> raw) {
  size_t start = raw->getStartIndex();
  brackets.push_back({raw->getType(), start});
  if (brackets.size() <= kMaxBracketDepth)
    return push(std::move(raw));
  error(start, start,
        "too deeply nested: more than " + std::to_string(kMaxBracketDepth) + " nested brackets",
        /*fatal=*/true);
  stopLexing(start);
}

void IndentingTokenizer::onCloseBracket(std::unique_ptr<antlr4::Token> raw) {
  size_t start = raw->getStartIndex();
  size_t type = raw->getType();
  if (brackets.empty())
    return error(start, start, std::string("unbalanced '") + spelling(type) + "'");
  OpenBracket open = brackets.back();
  brackets.pop_back();
  if (closerOf(open.type) != type) {
    error(start, start,
          std::string("mismatched '") + spelling(type) + "'; expected '" +
              spelling(closerOf(open.type)) + "'");
    errors.lexerNote(errors.getText().getRange(open.start, open.start),
                     std::string("to match this '") + spelling(open.type) + "'");
    static_cast<antlr4::CommonToken *>(raw.get())->setType(closerOf(open.type));
  }
  push(std::move(raw));
}

void IndentingTokenizer::onStrayCharacter(const antlr4::Token &raw) {
  error(raw.getStartIndex(), raw.getStopIndex(), strayCharacterMessage(raw.getText()));
}

void IndentingTokenizer::push(std::unique_ptr<antlr4::Token> token) {
  lastType = token->getType();
  pending.push_back(std::move(token));
}

void IndentingTokenizer::pushSynthetic(size_t type, size_t at, const char *text, size_t width) {
  auto token = std::make_unique<antlr4::CommonToken>(std::make_pair(this, _input), type,
                                                     DEFAULT_TOKEN_CHANNEL, at, at + width - 1);
  token->setText(text);
  token->setLine(getLine());
  token->setCharPositionInLine(getCharPositionInLine());
  push(std::move(token));
}

void IndentingTokenizer::error(size_t start, size_t stop, std::string message, bool fatal) {
  errors.lexerError(errors.getText().getRange(start, stop), std::move(message), fatal);
}

} // namespace dlm
