//===- compiler/frontend/Parse.cpp - Source text to AST ------------------===//
#include "compiler/frontend/Parse.h"

#include "compiler/frontend/ASTBuilder.h"
#include "compiler/frontend/IndentingTokenizer.h"
#include "compiler/frontend/SyntaxErrors.h"
#include "compiler/support/SourceText.h"

#include "ANTLRInputStream.h"
#include "BailErrorStrategy.h"
#include "CommonTokenStream.h"
#include "DlmParser.h"
#include "Exceptions.h"
#include "atn/ParserATNSimulator.h"
#include "atn/PredictionMode.h"

#include "llvm/ADT/STLExtras.h"

#include <cctype>
#include <utility>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace dlm {

using grammar::DlmParser;

namespace {

/// Thrown by DepthLimitedParser: expressions nest deeper than kMaxNestingDepth.
struct TooDeeplyNested {
  antlr4::Token *at;
};

/// The generated parser, which recurses once per nested (not chained) operand: `- - x`,
/// `a ** b ** c`, `a if c else b if d else e`. Counting those levels keeps the C stack bounded
/// on input such as 300 000 unary minus signs; a chain `a + b + c` is a loop and costs none.
class DepthLimitedParser : public DlmParser {
public:
  using DlmParser::DlmParser;

  void enterRecursionRule(antlr4::ParserRuleContext *localctx, size_t state, size_t ruleIndex,
                          int precedence) override {
    if (++depth > kMaxNestingDepth)
      throw TooDeeplyNested{getCurrentToken()};
    DlmParser::enterRecursionRule(localctx, state, ruleIndex, precedence);
  }
  void unrollRecursionContexts(antlr4::ParserRuleContext *parentctx) override {
    --depth;
    DlmParser::unrollRecursionContexts(parentctx);
  }
  void reset() override {
    depth = 0;
    DlmParser::reset();
  }

private:
  size_t depth = 0;
};

/// The lexer, token stream and parser of one buffer, wired to one error collector.
struct ParseSession {
  explicit ParseSession(const SourceText &text, unsigned indent = 0)
      : errors(text), input(text.getText().data(), text.getText().size()),
        lexer(&input, errors, indent), tokens(&lexer), parser(&tokens), listener(errors) {
    lexer.removeErrorListeners();
    parser.removeErrorListeners();
  }

  /// SLL with a bail-out strategy first (fast, no recovery); on failure full LL with dlm's
  /// error strategy and messages. Null after a "too deeply nested" error.
  DlmParser::FileContext *parse() {
    try {
      return parseTwoStage();
    } catch (TooDeeplyNested &e) {
      const SourceText &text = errors.getText();
      errors.lexerError(text.getRange(e.at->getStartIndex(), e.at->getStopIndex()),
                        "too deeply nested: more than " + std::to_string(kMaxNestingDepth) +
                            " levels of nesting",
                        /*fatal=*/true);
      return nullptr;
    }
  }

  DlmParser::FileContext *parseTwoStage() {
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::SLL);
    parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
    try {
      return parser.file();
    } catch (antlr4::ParseCancellationException &) {
    } catch (antlr4::RecognitionException &) {
    }
    tokens.seek(0);
    parser.reset();
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::LL);
    parser.setErrorHandler(std::make_shared<DlmErrorStrategy>());
    parser.addErrorListener(&listener);
    return parser.file();
  }

  SyntaxErrorCollector errors;
  antlr4::ANTLRInputStream input;
  IndentingTokenizer lexer;
  antlr4::CommonTokenStream tokens;
  DepthLimitedParser parser;
  DlmErrorListener listener;
};

/// Reports invalid UTF-8 (ANTLR would throw on it); returns false if there is some.
bool checkEncoding(DiagnosticEngine &diag, llvm::StringRef buffer) {
  std::optional<size_t> bad = findInvalidUTF8(buffer);
  if (!bad)
    return true;
  return diag.error(llvm::SMLoc::getFromPointer(buffer.data() + *bad),
                    "invalid UTF-8 in source file");
}

/// Reports the first node deeper than kMaxNestingDepth. Iterative: the tree may be deep. The
/// left operand of a binary operator sits at its operator's depth (see kMaxNestingDepth).
bool checkNestingDepth(DiagnosticEngine &diag, const Module &module) {
  std::vector<std::pair<const Node *, unsigned>> stack;
  for (const Stmt *stmt : module.getBody())
    stack.emplace_back(stmt, 1);
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (depth > kMaxNestingDepth)
      return diag.error(node->getRange(), "too deeply nested: more than " +
                                              llvm::Twine(kMaxNestingDepth) + " levels of nesting");
    const auto *binary = llvm::dyn_cast<BinaryExpr>(node);
    forEachChild(node, [&, depth = depth](const Node *child) {
      stack.emplace_back(child, binary && child == binary->getLHS() ? depth : depth + 1);
    });
  }
  return true;
}

/// Turns off glibc's fastbins, once per process. A parse allocates a few million small
/// objects (tokens, parse-tree contexts, terminal nodes) and frees them together; with fastbins
/// every free that coalesces into a large block (>= 64 KiB) runs malloc_consolidate, which was
/// 28 % of the parse time in `perf` (bench/RESULTS.md). Without them frees coalesce at once and
/// tcache still serves the hot small sizes; the later stages measured the same either way.
void tuneAllocator() {
#if defined(__GLIBC__) && defined(M_MXFAST)
  static const bool tuned = mallopt(M_MXFAST, 0) == 1;
  (void)tuned;
#endif
}

} // namespace

std::unique_ptr<Module> parseBuffer(DiagnosticEngine &diag, unsigned bufferID, unsigned indent) {
  tuneAllocator();
  const llvm::MemoryBuffer *buffer = diag.getSourceMgr().getMemoryBuffer(bufferID);
  if (!checkEncoding(diag, buffer->getBuffer()))
    return nullptr;
  SourceText text(buffer->getBuffer());
  ParseSession session(text, indent);
  session.tokens.fill(); // lex everything first: lexical errors are known before parsing
  DlmParser::FileContext *tree = session.parse();
  if (session.errors.flush(diag) != 0)
    return nullptr;
  llvm::SMRange whole(text.getLoc(0), text.getLoc(text.size()));
  auto module = std::make_unique<Module>(whole, buffer->getBufferIdentifier().str(), bufferID);
  ASTBuilder builder(diag, text, *module);
  if (!builder.buildFile(tree) || !checkNestingDepth(diag, *module))
    return nullptr;
  return module;
}

std::unique_ptr<Module> parseFile(DiagnosticEngine &diag, llvm::StringRef path,
                                  llvm::SMRange importLoc) {
  std::optional<unsigned> buffer = diag.addFile(path, importLoc);
  if (!buffer)
    return nullptr;
  return parseBuffer(diag, *buffer);
}

std::vector<TokenInfo> tokenize(DiagnosticEngine &diag, unsigned bufferID, unsigned indent) {
  const llvm::MemoryBuffer *buffer = diag.getSourceMgr().getMemoryBuffer(bufferID);
  if (!checkEncoding(diag, buffer->getBuffer()))
    return {};
  SourceText text(buffer->getBuffer());
  ParseSession session(text, indent);
  session.tokens.fill();
  std::vector<TokenInfo> out;
  const antlr4::dfa::Vocabulary &vocabulary = session.parser.getVocabulary();
  for (antlr4::Token *token : session.tokens.getTokens()) {
    size_t type = token->getType();
    bool synthetic =
        type == DlmParser::INDENT || type == DlmParser::DEDENT || type == antlr4::Token::EOF;
    std::string kind = type == antlr4::Token::EOF ? "EOF" : vocabulary.getSymbolicName(type);
    out.push_back(TokenInfo{kind, synthetic ? "" : token->getText(),
                            text.getRange(token->getStartIndex(), token->getStopIndex())});
  }
  session.errors.flush(diag);
  return out;
}

namespace {

/// Whether `first` and `second` are the lexer's reading of an unclosed `"""` (or `'''`): a
/// closed one is a single STRING token (the longest match), so an empty string followed at
/// once by a string with the same quote is the opening of one that never closes.
bool opensLongString(const antlr4::Token &first, const antlr4::Token &second) {
  std::string quote = first.getText();
  return first.getType() == DlmParser::STRING && second.getType() == DlmParser::STRING &&
         (quote == "\"\"" || quote == "''") && second.getStartIndex() == first.getStopIndex() + 1 &&
         second.getText().front() == quote.front();
}

} // namespace

OpenConstructs findOpenConstructs(llvm::StringRef buffer) {
  OpenConstructs open;
  if (findInvalidUTF8(buffer))
    return open;
  SourceText text(buffer);
  ParseSession session(text);
  session.tokens.fill();
  const std::vector<antlr4::Token *> &tokens = session.tokens.getTokens();
  const antlr4::Token *lastNewline = nullptr;
  for (size_t i = 0; i < tokens.size(); ++i) {
    switch (tokens[i]->getType()) {
    case DlmParser::LPAREN:
    case DlmParser::LBRACK:
      ++open.brackets;
      break;
    case DlmParser::RPAREN:
    case DlmParser::RBRACK:
      --open.brackets; // the tokenizer drops a closer that closes nothing
      break;
    case DlmParser::COLON: // inside brackets only the end of the text is a NEWLINE
      open.blockHeader |= open.brackets == 0 && i + 1 < tokens.size() &&
                          tokens[i + 1]->getType() == DlmParser::NEWLINE;
      break;
    case DlmParser::NEWLINE:
      lastNewline = tokens[i];
      break;
    default:
      open.longString |= i + 1 < tokens.size() && opensLongString(*tokens[i], *tokens[i + 1]);
      break;
    }
  }
  // Past the bracket limit the tokenizer stopped: the compilation reports it.
  if (open.brackets > kMaxBracketDepth)
    open.brackets = 0;
  // When no line break ends the last logical line, the tokenizer ends it with a NEWLINE of
  // its own at the end of the text: the text's final line break was joined to the next line.
  open.lineJoin = open.brackets == 0 && lastNewline &&
                  lastNewline->getStartIndex() >= text.size() && buffer.ends_with("\n");
  return open;
}

std::vector<std::string> keywords() {
  SourceText text("");
  ParseSession session(text);
  const antlr4::dfa::Vocabulary &vocabulary = session.parser.getVocabulary();
  std::vector<std::string> out;
  for (size_t type = 1; type <= vocabulary.getMaxTokenType(); ++type) {
    std::string literal = vocabulary.getLiteralName(type); // "'def'", "'+'" or ""
    if (literal.size() < 3 || literal.front() != '\'' || literal.back() != '\'')
      continue;
    llvm::StringRef word = llvm::StringRef(literal).drop_front().drop_back();
    if (llvm::all_of(word, [](char c) { return std::isalpha((unsigned char)c) || c == '_'; }))
      out.push_back(word.str());
  }
  return out;
}

} // namespace dlm
