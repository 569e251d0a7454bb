//===- compiler/frontend/SyntaxErrors.cpp - Readable syntax errors --------===//
#include "compiler/frontend/SyntaxErrors.h"

#include "DlmParser.h"
#include "FailedPredicateException.h"
#include "InputMismatchException.h"
#include "NoViableAltException.h"
#include "Parser.h"
#include "Vocabulary.h"

#include <algorithm>

namespace dlm {

using grammar::DlmParser;

//===----------------------------------------------------------------------===//
// Collecting and filtering
//===----------------------------------------------------------------------===//

void SyntaxErrorCollector::lexerError(llvm::SMRange range, std::string message, bool fatal) {
  errors.push_back(PendingError{range, std::move(message), {}, /*fromLexer=*/true});
  if (fatal && (!fatalFrom || range.Start.getPointer() < *fatalFrom))
    fatalFrom = range.Start.getPointer();
}

void SyntaxErrorCollector::lexerNote(llvm::SMRange range, std::string message) {
  if (!errors.empty())
    errors.back().notes.emplace_back(range, std::move(message));
}

void SyntaxErrorCollector::parserError(llvm::SMRange range, std::string message) {
  errors.push_back(PendingError{range, std::move(message), {}, /*fromLexer=*/false});
}

unsigned SyntaxErrorCollector::flush(DiagnosticEngine &diag) {
  // Lexer errors first at equal positions: they explain the parser's.
  std::stable_sort(errors.begin(), errors.end(), [](const PendingError &a, const PendingError &b) {
    if (a.range.Start.getPointer() != b.range.Start.getPointer())
      return a.range.Start.getPointer() < b.range.Start.getPointer();
    return a.fromLexer && !b.fromLexer;
  });
  const char *end = text.getText().data() + text.getText().size();
  unsigned lastLine = 0;
  unsigned reported = 0;
  for (const PendingError &e : errors) {
    const char *at = e.range.Start.getPointer();
    bool afterFatal = fatalFrom && at >= *fatalFrom;
    if (!e.fromLexer && (afterFatal || (at >= end && reported != 0)))
      continue;
    unsigned line = diag.getLineAndColumn(e.range.Start).first;
    if (line == lastLine)
      continue;
    lastLine = line;
    ++reported;
    diag.error(e.range, e.message);
    for (const auto &[range, message] : e.notes)
      diag.note(range, message);
  }
  errors.clear();
  return reported;
}

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

std::string describeToken(const antlr4::Token *token) {
  std::string text = token->getText();
  if (text.size() > 24)
    text = text.substr(0, 21) + "...";
  switch (token->getType()) {
  case antlr4::Token::EOF:
    return "end of file";
  case DlmParser::NEWLINE:
    return "end of line";
  case DlmParser::INDENT:
    return "indent";
  case DlmParser::DEDENT:
    return "unindent";
  case DlmParser::NAME:
    return "name '" + text + "'";
  case DlmParser::INT:
  case DlmParser::FLOAT:
    return "number '" + text + "'";
  case DlmParser::STRING:
    return "string literal";
  default:
    return "'" + text + "'";
  }
}

namespace {

bool has(const antlr4::misc::IntervalSet &set, size_t type) { return set.contains(type); }

/// How an expected token type is named: "':'", "name", "end of line", ...
std::string describeTokenType(antlr4::Parser *parser, size_t type) {
  switch (type) {
  case antlr4::Token::EOF:
    return "end of file";
  case DlmParser::NEWLINE:
    return "end of line";
  case DlmParser::INDENT:
    return "an indented block";
  case DlmParser::DEDENT:
    return "unindent";
  case DlmParser::NAME:
    return "name";
  case DlmParser::INT:
    return "integer";
  case DlmParser::FLOAT:
    return "number";
  case DlmParser::STRING:
    return "string literal";
  default:
    return parser->getVocabulary().getLiteralName(type);
  }
}

/// Token types after which " after 'tok'" makes a message clearer: operators, keywords,
/// opening punctuation.
bool isWorthNaming(size_t type) {
  switch (type) {
  case DlmParser::NAME:
  case DlmParser::INT:
  case DlmParser::FLOAT:
  case DlmParser::STRING:
  case DlmParser::RPAREN:
  case DlmParser::RBRACK:
  case DlmParser::NEWLINE:
  case DlmParser::INDENT:
  case DlmParser::DEDENT:
  case DlmParser::TRUE:
  case DlmParser::FALSE:
    return false;
  default:
    return true;
  }
}

std::string afterPrevious(antlr4::Parser *parser, antlr4::Token *offending) {
  if (offending->getTokenIndex() == 0 || offending->getTokenIndex() == static_cast<size_t>(-1))
    return "";
  antlr4::Token *previous = parser->getTokenStream()->get(offending->getTokenIndex() - 1);
  if (!isWorthNaming(previous->getType()))
    return "";
  return " after '" + previous->getText() + "'";
}

/// The construct a rule stands for, as named after "expected ':' after ..." (`colon`) or
/// "expected an indented block after ..." (`!colon`); empty for other rules.
std::string constructName(size_t rule, bool colon) {
  switch (rule) {
  case DlmParser::RuleFuncDef:
    return colon ? "function signature" : "function definition";
  case DlmParser::RuleIfStmt:
    return colon ? "'if' condition" : "'if' statement";
  case DlmParser::RuleElifClause:
    return colon ? "'elif' condition" : "'elif' clause";
  case DlmParser::RuleElseClause:
    return "'else'";
  case DlmParser::RuleWhileStmt:
    return colon ? "'while' condition" : "'while' statement";
  case DlmParser::RuleForStmt:
    return colon ? "'for' clause" : "'for' statement";
  default:
    return "";
  }
}

bool startsExpression(const antlr4::misc::IntervalSet &expected) {
  return has(expected, DlmParser::NAME) && has(expected, DlmParser::INT) &&
         has(expected, DlmParser::LPAREN);
}

size_t enclosingRule(antlr4::Parser *parser, size_t depth) {
  antlr4::RuleContext *ctx = parser->getContext();
  for (size_t i = 0; i < depth && ctx && ctx->parent; ++i)
    ctx = static_cast<antlr4::RuleContext *>(ctx->parent);
  return ctx ? ctx->getRuleIndex() : static_cast<size_t>(-1);
}

bool startsExpressionToken(size_t type) {
  switch (type) {
  case DlmParser::NAME:
  case DlmParser::INT:
  case DlmParser::FLOAT:
  case DlmParser::STRING:
  case DlmParser::LPAREN:
  case DlmParser::LBRACK:
  case DlmParser::TRUE:
  case DlmParser::FALSE:
  case DlmParser::NOT:
  case DlmParser::MINUS:
    return true;
  default:
    return false;
  }
}

/// A closing bracket the parser would accept, or 0.
size_t expectedCloser(const antlr4::misc::IntervalSet &expected) {
  if (has(expected, DlmParser::RPAREN))
    return DlmParser::RPAREN;
  if (has(expected, DlmParser::RBRACK))
    return DlmParser::RBRACK;
  return 0;
}

/// Python's `import m as x` and `from m import f`, which dlm does not have: what to write
/// instead, or empty. `offending` is the token after a complete statement.
std::string pythonImportHabit(antlr4::Parser *parser, antlr4::Token *offending) {
  size_t index = offending->getTokenIndex();
  if (index == 0 || index == static_cast<size_t>(-1))
    return "";
  antlr4::TokenStream *tokens = parser->getTokenStream();
  // The statement's first token: after a NEWLINE, INDENT or DEDENT, or the file's first.
  size_t first = index - 1;
  while (first > 0) {
    size_t type = tokens->get(first - 1)->getType();
    if (type == DlmParser::NEWLINE || type == DlmParser::INDENT || type == DlmParser::DEDENT)
      break;
    --first;
  }
  antlr4::Token *start = tokens->get(first);
  if (start->getType() == DlmParser::IMPORT && offending->getText() == "as")
    return "'import ... as' is not supported: the module is bound to the last part of its "
           "path ('import nn' gives 'nn')";
  if (start->getType() == DlmParser::NAME && start->getText() == "from" && first + 1 == index)
    return "'from ... import' is not supported: 'import " + offending->getText() +
           "', then call its functions as '" + offending->getText() + ".name(...)'";
  return "";
}

/// The message for a syntax error at `offending` where the parser expected `expected`.
std::string syntaxMessage(antlr4::Parser *parser, antlr4::Token *offending,
                          const antlr4::misc::IntervalSet &expected) {
  size_t rule = parser->getContext()->getRuleIndex();
  if (offending->getType() == DlmParser::INDENT)
    return "unexpected indent";
  if (has(expected, DlmParser::INDENT)) {
    std::string construct = constructName(enclosingRule(parser, 1), /*colon=*/false);
    return "expected an indented block" + (construct.empty() ? "" : " after " + construct);
  }
  std::string colonAfter = constructName(rule, /*colon=*/true);
  if (has(expected, DlmParser::COLON) && !colonAfter.empty())
    return "expected ':' after " + colonAfter;
  if (rule == DlmParser::RuleForStmt && has(expected, DlmParser::IN))
    return "expected 'in' after 'for' target";
  if (rule == DlmParser::RuleFuncDef && has(expected, DlmParser::NAME))
    return "expected function name after 'def'";
  if (startsExpression(expected))
    return "expected expression" + afterPrevious(parser, offending);
  size_t closer = expectedCloser(expected);
  if (closer && (has(expected, DlmParser::COMMA) || startsExpressionToken(offending->getType())))
    return "expected ',' or " + describeTokenType(parser, closer) + ", found " +
           describeToken(offending);
  if (has(expected, DlmParser::NEWLINE)) {
    if (std::string habit = pythonImportHabit(parser, offending); !habit.empty())
      return habit;
    return "expected end of line after statement, found " + describeToken(offending);
  }
  if (expected.size() == 1)
    return "expected " + describeTokenType(parser, expected.getMinElement()) +
           afterPrevious(parser, offending);
  return "unexpected " + describeToken(offending);
}

} // namespace

//===----------------------------------------------------------------------===//
// Strategy and listener
//===----------------------------------------------------------------------===//

void DlmErrorStrategy::reportAt(antlr4::Parser *parser, antlr4::Token *offending,
                                const antlr4::misc::IntervalSet &expected) {
  parser->notifyErrorListeners(offending, syntaxMessage(parser, offending, expected), nullptr);
}

void DlmErrorStrategy::reportNoViableAlternative(antlr4::Parser *parser,
                                                 const antlr4::NoViableAltException &e) {
  reportAt(parser, e.getOffendingToken(), e.getExpectedTokens());
}

void DlmErrorStrategy::reportInputMismatch(antlr4::Parser *parser,
                                           const antlr4::InputMismatchException &e) {
  reportAt(parser, e.getOffendingToken(), e.getExpectedTokens());
}

void DlmErrorStrategy::reportFailedPredicate(antlr4::Parser *parser,
                                             const antlr4::FailedPredicateException &e) {
  reportAt(parser, e.getOffendingToken(), getExpectedTokens(parser));
}

void DlmErrorStrategy::reportUnwantedToken(antlr4::Parser *parser) {
  if (inErrorRecoveryMode(parser))
    return;
  beginErrorCondition(parser);
  reportAt(parser, parser->getCurrentToken(), getExpectedTokens(parser));
}

void DlmErrorStrategy::reportMissingToken(antlr4::Parser *parser) {
  if (inErrorRecoveryMode(parser))
    return;
  beginErrorCondition(parser);
  reportAt(parser, parser->getCurrentToken(), getExpectedTokens(parser));
}

void DlmErrorListener::syntaxError(antlr4::Recognizer *, antlr4::Token *offending, size_t, size_t,
                                   const std::string &msg, std::exception_ptr) {
  const SourceText &text = collector.getText();
  llvm::SMRange range = offending
                            ? text.getRange(offending->getStartIndex(), offending->getStopIndex())
                            : llvm::SMRange(text.getLoc(text.size()), text.getLoc(text.size()));
  collector.parserError(range, msg);
}

} // namespace dlm
