//===- tests/support/unit/DiagnosticsTest.cpp - The diagnostics engine ----===//
//
// The printed format, counting and the summary line, notes, the print hook, the error limit,
// colour policy, file loading errors, line/column mapping and verify mode.
//
//===----------------------------------------------------------------------===//
#include "compiler/support/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace dlm;

namespace {

class DiagnosticsTest : public ::testing::Test {
protected:
  DiagnosticsTest() : os(out), diag(os, "tool") { diag.setColorMode(ColorMode::Never); }

  /// Adds `source` as "file.dlm" and returns a pointer to its first occurrence of `needle`.
  const char *at(llvm::StringRef needle) {
    llvm::StringRef text = diag.getSourceMgr().getMemoryBuffer(buffer)->getBuffer();
    size_t offset = text.find(needle);
    EXPECT_NE(offset, llvm::StringRef::npos) << needle.str();
    return text.data() + offset;
  }
  llvm::SMRange range(llvm::StringRef needle) {
    const char *begin = at(needle);
    return llvm::SMRange(llvm::SMLoc::getFromPointer(begin),
                         llvm::SMLoc::getFromPointer(begin + needle.size()));
  }
  void load(llvm::StringRef source) { buffer = diag.addBuffer(source, "file.dlm"); }

  std::string out;
  llvm::raw_string_ostream os;
  DiagnosticEngine diag;
  unsigned buffer = 0;
};

TEST_F(DiagnosticsTest, ErrorWithRangePrintsLineAndCaret) {
  load("x = 1\ny = a + b\n");
  EXPECT_FALSE(diag.error(range("a + b"), "cannot add"));
  EXPECT_EQ(os.str(), "file.dlm:2:5: error: cannot add\ny = a + b\n    ^~~~~\n");
  EXPECT_EQ(diag.getNumErrors(), 1u);
}

TEST_F(DiagnosticsTest, NotesFollowTheirError) {
  load("b = 1\ny = a + b\n");
  diag.error(range("a + b"), "cannot broadcast");
  diag.note(range("b = 1"), "'b' defined here");
  EXPECT_EQ(os.str(), "file.dlm:2:5: error: cannot broadcast\ny = a + b\n    ^~~~~\n"
                      "file.dlm:1:1: note: 'b' defined here\nb = 1\n^~~~~\n");
  EXPECT_EQ(diag.getNumErrors(), 1u);
}

// The print hook prints what it takes (here a note it rewords); the rest prints as usual and
// every diagnostic is counted either way.
TEST_F(DiagnosticsTest, PrintHookPrintsWhatItTakes) {
  load("b = 1\ny = a + b\n");
  diag.setPrintHook([](const Diagnostic &d, llvm::raw_ostream &out, bool colors) {
    if (d.kind != DiagKind::Note)
      return false;
    EXPECT_FALSE(colors);
    out << "hooked: " << d.message << "\n";
    return true;
  });
  diag.error(range("a + b"), "cannot broadcast");
  diag.note(range("b = 1"), "'b' defined here");
  EXPECT_EQ(os.str(), "file.dlm:2:5: error: cannot broadcast\ny = a + b\n    ^~~~~\n"
                      "hooked: 'b' defined here\n");
  EXPECT_EQ(diag.getDiagnostics().size(), 2u);
}

TEST_F(DiagnosticsTest, UnlocatedErrorsNameTheTool) {
  diag.error("no such file or directory: 'x.dlm'");
  EXPECT_EQ(os.str(), "tool: error: no such file or directory: 'x.dlm'\n");
}

TEST_F(DiagnosticsTest, SummaryLine) {
  load("x\n");
  diag.printSummary();
  EXPECT_EQ(os.str(), "");
  diag.error(range("x"), "one");
  out.clear();
  diag.printSummary();
  EXPECT_EQ(os.str(), "1 error generated\n");
  diag.error(range("x"), "two");
  diag.warning(range("x"), "careful");
  out.clear();
  diag.printSummary();
  EXPECT_EQ(os.str(), "1 warning and 2 errors generated\n");
}

TEST_F(DiagnosticsTest, ErrorLimitStopsPrintingButKeepsCounting) {
  load("x\n");
  diag.setErrorLimit(2);
  for (int i = 0; i < 5; ++i) {
    diag.error(range("x"), "error " + llvm::Twine(i));
    diag.note(range("x"), "note " + llvm::Twine(i));
  }
  EXPECT_EQ(diag.getNumErrors(), 5u);
  EXPECT_NE(os.str().find("error 1"), std::string::npos);
  EXPECT_NE(os.str().find("note 1"), std::string::npos);
  EXPECT_EQ(os.str().find("error 2"), std::string::npos);
  EXPECT_EQ(os.str().find("note 2"), std::string::npos);
  EXPECT_NE(os.str().find("too many errors emitted"), std::string::npos);
}

TEST_F(DiagnosticsTest, ColourPolicy) {
  load("x\n");
  diag.setColorMode(ColorMode::Always);
  EXPECT_TRUE(diag.showColors());
  diag.error(range("x"), "coloured");
  EXPECT_NE(os.str().find("\x1b["), std::string::npos);
  diag.setColorMode(ColorMode::Never);
  EXPECT_FALSE(diag.showColors());
  // Auto: never on a string stream (not a terminal), never with NO_COLOR.
  diag.setColorMode(ColorMode::Auto);
  EXPECT_FALSE(diag.showColors());
  setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(diag.showColors());
  unsetenv("NO_COLOR");
}

TEST_F(DiagnosticsTest, LineAndColumn) {
  load("ab\n\ncd\nlast");
  EXPECT_EQ(diag.getLineAndColumn(llvm::SMLoc::getFromPointer(at("b"))), std::make_pair(1u, 2u));
  EXPECT_EQ(diag.getLineAndColumn(llvm::SMLoc::getFromPointer(at("cd"))), std::make_pair(3u, 1u));
  EXPECT_EQ(diag.getLineAndColumn(llvm::SMLoc::getFromPointer(at("t"))), std::make_pair(4u, 4u));
  EXPECT_EQ(diag.getLineAndColumn(llvm::SMLoc::getFromPointer(at("last") + 4)),
            std::make_pair(4u, 5u));
  EXPECT_EQ(diag.getLineAndColumn(llvm::SMLoc()), std::make_pair(0u, 0u));
  EXPECT_EQ(diag.getBufferName(llvm::SMLoc::getFromPointer(at("cd"))), "file.dlm");
}

TEST_F(DiagnosticsTest, SeveralBuffers) {
  load("x = 1\n");
  unsigned other = diag.addBuffer("import\n  y\n", "lib.dlm");
  const char *y = diag.getSourceMgr().getMemoryBuffer(other)->getBuffer().data() + 9;
  diag.error(llvm::SMLoc::getFromPointer(y), "in the imported file");
  EXPECT_EQ(os.str(), "lib.dlm:2:3: error: in the imported file\n  y\n  ^\n");
}

TEST_F(DiagnosticsTest, MissingFileAndDirectory) {
  EXPECT_FALSE(diag.addFile("/nonexistent/dir/x.dlm").has_value());
  EXPECT_FALSE(diag.addFile("/").has_value());
  EXPECT_EQ(os.str(), "tool: error: no such file or directory: '/nonexistent/dir/x.dlm'\n"
                      "tool: error: '/' is a directory, not a source file\n");
}

TEST_F(DiagnosticsTest, LongLinesShowAWindowAroundTheCaret) {
  std::string line = "x = " + std::string(1000, 'a') + " + b";
  load(line + "\n");
  diag.error(range("b"), "unknown name 'b'");
  std::string printed = os.str();
  EXPECT_EQ(printed.find("file.dlm:1:1008: error: unknown name 'b'\n..."), 0u);
  EXPECT_LT(printed.size(), 400u);
}

TEST_F(DiagnosticsTest, VerifyAcceptsMatchingExpectations) {
  load("x = 1  # expected-error {{bad x}}\n"
       "# expected-warning@+1 {{odd}}\n"
       "y = 2\n"
       "z = 3\n"
       "# expected-note@-1 {{see z}}\n");
  diag.setVerifyMode(true);
  diag.error(range("x = 1"), "this is a bad x indeed");
  diag.warning(range("y"), "odd y");
  diag.note(range("z = 3"), "see z here");
  EXPECT_EQ(os.str(), ""); // captured, not printed
  EXPECT_TRUE(diag.verify());
  EXPECT_EQ(os.str(), "");
}

TEST_F(DiagnosticsTest, VerifyReportsMissingAndUnexpected) {
  load("x = 1  # expected-error {{bad x}}\n"
       "y = 2\n");
  diag.setVerifyMode(true);
  diag.error(range("y"), "bad y");
  EXPECT_FALSE(diag.verify());
  EXPECT_NE(os.str().find("file.dlm:2:1: error: unexpected error: bad y"), std::string::npos);
  EXPECT_NE(os.str().find("file.dlm:1:10: error: expected error \"bad x\" was not produced"),
            std::string::npos);
}

TEST_F(DiagnosticsTest, VerifyDistinguishesKindsAndLines) {
  load("x = 1  # expected-error {{bad}}\n"
       "y = 2\n");
  diag.setVerifyMode(true);
  diag.warning(range("x"), "bad"); // right line, wrong kind
  diag.error(range("y"), "bad");   // right kind, wrong line
  EXPECT_FALSE(diag.verify());
  EXPECT_NE(os.str().find("unexpected warning: bad"), std::string::npos);
  EXPECT_NE(os.str().find("unexpected error: bad"), std::string::npos);
}

TEST_F(DiagnosticsTest, VerifyRejectsMalformedExpectations) {
  load("x = 1  # expected-error bad\n");
  diag.setVerifyMode(true);
  EXPECT_FALSE(diag.verify());
  EXPECT_NE(os.str().find("expected '{{' in expected-error"), std::string::npos);
}

} // namespace
