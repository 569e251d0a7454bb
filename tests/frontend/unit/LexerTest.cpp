//===- tests/frontend/unit/LexerTest.cpp - INDENT/DEDENT and line joining --===//
//
// The token stream the parser sees, as token kind names, for the layout rules of the
// language: logical lines, indentation blocks, line joining, and the lexical errors with
// their recovery.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontend/Parse.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>

#include <gtest/gtest.h>

using namespace dlm;

namespace {

struct Lexed {
  std::string kinds;
  std::vector<TokenInfo> tokens;
  std::string errors;
  unsigned numErrors;
};

Lexed lex(llvm::StringRef source, unsigned indent = 0) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  DiagnosticEngine diag(os, "test");
  diag.setColorMode(ColorMode::Never);
  unsigned buffer = diag.addBuffer(source, "input.dlm");
  Lexed out{"", tokenize(diag, buffer, indent), "", 0};
  for (const TokenInfo &token : out.tokens)
    out.kinds += (out.kinds.empty() ? "" : " ") + token.kind;
  out.errors = os.str();
  out.numErrors = diag.getNumErrors();
  return out;
}

std::string kinds(llvm::StringRef source) { return lex(source).kinds; }

TEST(LexerTest, OneStatement) { EXPECT_EQ(kinds("x = 1\n"), "NAME ASSIGN INT NEWLINE EOF"); }

TEST(LexerTest, EmptyAndCommentOnlyFilesHaveOnlyEOF) {
  EXPECT_EQ(kinds(""), "EOF");
  EXPECT_EQ(kinds("\n\n   \n"), "EOF");
  EXPECT_EQ(kinds("# just a comment\n   # another\n"), "EOF");
}

TEST(LexerTest, MissingFinalNewlineIsSupplied) {
  EXPECT_EQ(kinds("x = 1"), "NAME ASSIGN INT NEWLINE EOF");
}

TEST(LexerTest, IndentAndDedent) {
  EXPECT_EQ(kinds("if a:\n  b\nc\n"),
            "IF NAME COLON NEWLINE INDENT NAME NEWLINE DEDENT NAME NEWLINE EOF");
}

TEST(LexerTest, SeveralDedentsAtOnce) {
  EXPECT_EQ(kinds("if a:\n  if b:\n    c\nd\n"),
            "IF NAME COLON NEWLINE INDENT IF NAME COLON NEWLINE INDENT NAME NEWLINE DEDENT DEDENT "
            "NAME NEWLINE EOF");
}

TEST(LexerTest, DedentToAnOuterBlockOnly) {
  EXPECT_EQ(kinds("if a:\n  if b:\n    c\n  d\n"),
            "IF NAME COLON NEWLINE INDENT IF NAME COLON NEWLINE INDENT NAME NEWLINE DEDENT NAME "
            "NEWLINE DEDENT EOF");
}

TEST(LexerTest, OpenBlocksCloseAtEndOfFileWithoutNewline) {
  EXPECT_EQ(
      kinds("if a:\n  if b:\n    c"),
      "IF NAME COLON NEWLINE INDENT IF NAME COLON NEWLINE INDENT NAME NEWLINE DEDENT DEDENT EOF");
}

TEST(LexerTest, BlankAndCommentLinesDoNotAffectIndentation) {
  EXPECT_EQ(kinds("if a:\n\n  # at two\n        # at eight\n  b\n\n# at zero\n  c\nd\n"),
            "IF NAME COLON NEWLINE INDENT NAME NEWLINE NAME NEWLINE DEDENT NAME NEWLINE EOF");
}

TEST(LexerTest, LeadingBlankLines) { EXPECT_EQ(kinds("\n\n# c\nx\n"), "NAME NEWLINE EOF"); }

TEST(LexerTest, BracketsJoinLines) {
  EXPECT_EQ(kinds("f(a,\n      b,\n\n  c)\nd\n"),
            "NAME LPAREN NAME COMMA NAME COMMA NAME RPAREN NEWLINE NAME NEWLINE EOF");
  EXPECT_EQ(kinds("x = [1,\n# comment\n2]\n"),
            "NAME ASSIGN LBRACK INT COMMA INT RBRACK NEWLINE EOF");
}

TEST(LexerTest, BackslashJoinsLines) {
  EXPECT_EQ(kinds("x = 1 + \\\n    2\ny\n"), "NAME ASSIGN INT PLUS INT NEWLINE NAME NEWLINE EOF");
}

TEST(LexerTest, CarriageReturnLineFeed) {
  EXPECT_EQ(kinds("if a:\r\n  b\r\nc\r\n"),
            "IF NAME COLON NEWLINE INDENT NAME NEWLINE DEDENT NAME NEWLINE EOF");
}

TEST(LexerTest, IndentTokensSitAtTheFirstTokenOfTheLine) {
  Lexed lexed = lex("if a:\n    b\nc\n");
  ASSERT_EQ(lexed.tokens[4].kind, "INDENT");
  EXPECT_EQ(lexed.tokens[4].range.Start.getPointer(), lexed.tokens[5].range.Start.getPointer());
  ASSERT_EQ(lexed.tokens[7].kind, "DEDENT");
  EXPECT_EQ(lexed.tokens[7].range.Start.getPointer(), lexed.tokens[8].range.Start.getPointer());
}

TEST(LexerTest, TabInIndentationIsAnErrorAndStaysInTheBlock) {
  Lexed lexed = lex("if a:\n    b\n\tc\nd\n");
  EXPECT_EQ(lexed.numErrors, 1u);
  EXPECT_NE(lexed.errors.find("input.dlm:3:1: error: tab in indentation (use spaces)"),
            std::string::npos);
  EXPECT_EQ(lexed.kinds,
            "IF NAME COLON NEWLINE INDENT NAME NEWLINE NAME NEWLINE DEDENT NAME NEWLINE EOF");
}

TEST(LexerTest, TabsInsideALineAreSpaces) {
  Lexed lexed = lex("x =\t1\n");
  EXPECT_EQ(lexed.numErrors, 0u);
  EXPECT_EQ(lexed.kinds, "NAME ASSIGN INT NEWLINE EOF");
}

TEST(LexerTest, InconsistentDedentIsAnErrorWithoutCascade) {
  Lexed lexed = lex("if a:\n    b\n  c\n  d\ne\n");
  EXPECT_EQ(lexed.numErrors, 1u);
  EXPECT_NE(lexed.errors.find(
                "input.dlm:3:3: error: unindent does not match any outer indentation level"),
            std::string::npos);
  // The dedent closes the if-block; c and d continue the block it reached (the top level),
  // and leaving their odd column for e closes nothing the parser knows of.
  EXPECT_EQ(lexed.kinds, "IF NAME COLON NEWLINE INDENT NAME NEWLINE DEDENT NAME NEWLINE NAME "
                         "NEWLINE NAME NEWLINE EOF");
}

TEST(LexerTest, IndentedFirstLineIsAnError) {
  Lexed lexed = lex("  x\n");
  EXPECT_EQ(lexed.numErrors, 1u);
  EXPECT_NE(lexed.errors.find("unexpected indent"), std::string::npos);
  EXPECT_EQ(lexed.kinds, "NAME NEWLINE EOF");
}

// A def cut out of an indented block of a Python file (@dlm.jit) is lexed where it stands: its
// top level is the def's column, so positions are the file's.
TEST(LexerTest, TopLevelAtAnIndentation) {
  Lexed lexed = lex("    def f(x):\n        return x\n\n  # a comment further left\n    y\n", 4);
  EXPECT_EQ(lexed.numErrors, 0u);
  EXPECT_EQ(lexed.kinds, "DEF NAME LPAREN NAME RPAREN COLON NEWLINE INDENT RETURN NAME NEWLINE "
                         "DEDENT NAME NEWLINE EOF");
}

TEST(LexerTest, LinesLeftOfAnIndentedTopLevelAreErrors) {
  Lexed first = lex("  x\n", 4);
  EXPECT_EQ(first.numErrors, 1u);
  EXPECT_NE(first.errors.find("input.dlm:1:3: error: unindent does not match any outer "
                              "indentation level"),
            std::string::npos);
  // A later line left of the top level stays at the top level: one error, no cascade.
  Lexed later = lex("    if a:\n        b\n  c\n    d\n", 4);
  EXPECT_EQ(later.numErrors, 1u);
  EXPECT_NE(later.errors.find("input.dlm:3:3: error: unindent does not match any outer "
                              "indentation level"),
            std::string::npos);
  EXPECT_EQ(later.kinds, "IF NAME COLON NEWLINE INDENT NAME NEWLINE DEDENT NAME NEWLINE NAME "
                         "NEWLINE EOF");
}

TEST(LexerTest, UnbalancedCloserIsDropped) {
  Lexed lexed = lex("x = 1)\ny\n");
  EXPECT_EQ(lexed.numErrors, 1u);
  EXPECT_EQ(lexed.kinds, "NAME ASSIGN INT NEWLINE NAME NEWLINE EOF");
}

TEST(LexerTest, MismatchedCloserBecomesTheRightOne) {
  Lexed lexed = lex("x = (1]\n");
  EXPECT_EQ(lexed.numErrors, 1u);
  EXPECT_NE(lexed.errors.find("note: to match this '('"), std::string::npos);
  EXPECT_EQ(lexed.kinds, "NAME ASSIGN LPAREN INT RPAREN NEWLINE EOF");
}

TEST(LexerTest, UnclosedBracketSwallowsTheRest) {
  Lexed lexed = lex("x = f(1,\ny = 2\n");
  EXPECT_EQ(lexed.numErrors, 1u);
  EXPECT_NE(lexed.errors.find("input.dlm:1:6: error: '(' was never closed"), std::string::npos);
  EXPECT_EQ(lexed.kinds, "NAME ASSIGN NAME LPAREN INT COMMA NAME ASSIGN INT NEWLINE EOF");
}

TEST(LexerTest, BracketNestingLimitStopsLexing) {
  std::string source = "x = " + std::string(250, '(') + "1\n";
  Lexed lexed = lex(source);
  EXPECT_EQ(lexed.numErrors, 1u);
  EXPECT_NE(lexed.errors.find("too deeply nested: more than 200 nested brackets"),
            std::string::npos);
  EXPECT_EQ(lexed.tokens.back().kind, "EOF");
}

TEST(LexerTest, UnterminatedStringIsReportedAndKept) {
  Lexed lexed = lex("x = \"abc\ny = 1\n");
  EXPECT_EQ(lexed.numErrors, 1u);
  EXPECT_NE(lexed.errors.find("input.dlm:1:5: error: unterminated string literal"),
            std::string::npos);
  EXPECT_EQ(lexed.kinds, "NAME ASSIGN STRING NEWLINE NAME ASSIGN INT NEWLINE EOF");
}

TEST(LexerTest, TripleQuotedStringsSpanLines) {
  EXPECT_EQ(kinds("x = \"\"\"a\n\n  b\"\"\"\ny\n"), "NAME ASSIGN STRING NEWLINE NAME NEWLINE EOF");
}

// findOpenConstructs (how the REPL knows an input goes on) reads the tokens, so brackets,
// quotes and colons inside strings and comments do not count.
TEST(LexerTest, OpenConstructsAtTheEnd) {
  auto open = [](llvm::StringRef text) {
    OpenConstructs o = findOpenConstructs(text);
    return std::to_string(o.brackets) + (o.lineJoin ? " join" : "") +
           (o.longString ? " string" : "") + (o.blockHeader ? " block" : "");
  };
  EXPECT_EQ(open("x = 1\n"), "0");
  EXPECT_EQ(open("f(1,\n"), "1");
  EXPECT_EQ(open("f([1,\n  2], (3\n"), "2");
  EXPECT_EQ(open("f(1))\n"), "0"); // an unbalanced ')' closes nothing
  EXPECT_EQ(open("print(\":(\", '[')  # (\n"), "0");
  EXPECT_EQ(open("x = 1 + \\\n"), "0 join");
  EXPECT_EQ(open("x = 1  # ends in \\\n"), "0");
  EXPECT_EQ(open("x = 1 + \\\n  2\n"), "0");
  EXPECT_EQ(open("def f(x):\n"), "0 block");
  EXPECT_EQ(open("if x:  # why\n    y = 1\n"), "0 block");
  EXPECT_EQ(open("if x: y = 1\n"), "0"); // a body on the header's line: no block
  EXPECT_EQ(open("y = x[1:\n"), "1");
  EXPECT_EQ(open("s = \"a:\"\n"), "0");
  EXPECT_EQ(open("def f():\n    \"\"\"Doc.\n\n"), "0 string block");
  EXPECT_EQ(open("s = '''a\n"), "0 string");
  EXPECT_EQ(open("s = \"\"\"a\n\nb\"\"\"\n"), "0");
  EXPECT_EQ(open("s = \"\" \"a\"\n"), "0"); // two strings, not a triple quote
  EXPECT_EQ(open("s = \"\"\"\"\n"), "0 string");
  EXPECT_EQ(open("\xff(\n"), "0"); // invalid UTF-8: the compilation reports it
}

// keywords() (what the REPL completes) is the grammar's list: every entry lexes as a keyword
// token, not as a NAME, and the list has the statement and literal keywords, no operators.
TEST(LexerTest, KeywordListIsTheGrammars) {
  std::vector<std::string> words = keywords();
  for (const char *k : {"def", "while", "for", "in", "import", "return", "True", "False", "not"})
    EXPECT_NE(std::find(words.begin(), words.end(), k), words.end()) << k;
  for (const std::string &w : words) {
    EXPECT_TRUE(llvm::all_of(w, [](char c) { return std::isalpha((unsigned char)c) || c == '_'; }))
        << w;
    std::string kind = lex(w + "\n").tokens.at(0).kind;
    EXPECT_NE(kind, "NAME") << w;
  }
}

TEST(LexerTest, KeywordsAndOperators) {
  EXPECT_EQ(kinds("a ** -b // c @ d <= e != f and not g\n"),
            "NAME POW MINUS NAME DSLASH NAME AT NAME LE NAME NE NAME AND NOT NAME NEWLINE EOF");
  EXPECT_EQ(kinds("x += 1.5e3\n"), "NAME PLUS_ASSIGN FLOAT NEWLINE EOF");
}

} // namespace
