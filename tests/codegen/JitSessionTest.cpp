//===- tests/codegen/JitSessionTest.cpp - One JitSession, many programs ---===//
//
// The REPL runs every input through one codegen::JitSession. These tests compile several
// different programs with loops (while, for, nested loops with break, a loop under grad, a
// loop that fails at run time) and run them through a single session, in one order and then
// again in another (the second round hits the session's cache), checking each run's status.
// The programs check their own results with `assert`, so a miscompiled loop exits 1.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Codegen.h"
#include "compiler/driver/Compilation.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using namespace dlm;

struct Program {
  const char *name;
  const char *source;
  int status; ///< what running it must return
};

const Program kPrograms[] = {
    {"while", R"(t = 0
i = 0
while i < 10:
    t += i
    i += 1
assert t == 45, "while sum"
)",
     0},
    {"for-tensor", R"(x = zeros(4)
for i in range(5):
    x = x + 1.0
assert sum(x) == 20.0, "for over a tensor"
)",
     0},
    {"nested-break", R"(n = 0
for i in range(6):
    j = 0
    while True:
        if j >= i:
            break
        n += 1
        j += 1
assert n == 15, "nested loops with break"
)",
     0},
    {"grad-loop", R"(def f(w):
    h = w
    k = 0
    while k < 3:
        h = h * w
        k += 1
    return sum(h)

g = grad(f)(ones(3) * 2.0)
assert sum(g) == 96.0, "d/dw w^4 at 2 is 32"
)",
     0},
    {"fails-in-loop", R"(k = 0
while k < 5:
    k += 1
    assert k < 3, "stops on the third iteration"
)",
     1},
};

/// Compiles `program` and runs it through `session`; returns the run's exit status.
int runThrough(codegen::JitSession &session, const Program &program, std::string &messages) {
  llvm::SmallString<128> path;
  if (llvm::sys::fs::createTemporaryFile("jit-session", "dlm", path))
    return -1;
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    if (ec)
      return -1;
    out << program.source;
  }
  llvm::raw_string_ostream errs(messages);
  DiagnosticEngine diags(errs, "jit-session-test");
  diags.setColorMode(ColorMode::Never);
  CompilerOptions options;
  options.input = path.str().str();
  Compilation compilation(options, diags);
  int status = -1;
  if (compilation.loadInput() && compilation.run(llvm::nulls()) && compilation.getGraph())
    status = session.run(*compilation.getGraph(), diags, codegen::CodegenOptions());
  llvm::sys::fs::remove(path);
  return status;
}

TEST(JitSession, RunsDifferentLoopProgramsInOneSession) {
  codegen::JitSession session;
  for (const Program &p : kPrograms) {
    std::string messages;
    EXPECT_EQ(runThrough(session, p, messages), p.status) << p.name << ":\n" << messages;
  }
}

TEST(JitSession, RunsProgramsAgainInAnotherOrder) {
  codegen::JitSession session;
  std::vector<const Program *> order;
  for (const Program &p : kPrograms)
    order.push_back(&p);
  for (int round = 0; round < 2; ++round) {
    for (const Program *p : order) {
      std::string messages;
      EXPECT_EQ(runThrough(session, *p, messages), p->status)
          << p->name << " (round " << round << "):\n"
          << messages;
      if (p->status != 0) {
        EXPECT_NE(messages.find("stops on the third iteration"), std::string::npos) << messages;
      }
    }
    std::reverse(order.begin(), order.end());
  }
}

} // namespace
