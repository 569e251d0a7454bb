//===- tools/dlm-opt/dlm-opt.cpp - Passes on textual graph IR -------------===//
//
// `dlm-opt FILE.dlmir [--passes=a,b] [--verify-each] [--print-locs] [--emit=dlmir|dot] [-o OUT]`
// parses a graph, verifies it, runs the named passes in order and prints the result — the way
// pass tests drive one pass in isolation (DESIGN.md "Textual IR"). The verifier always runs on
// the input; with --verify-each it also runs after every pass. Exit status: 0 ok, 1 invalid input
// (diagnostics on stderr), 2 usage.
//
// The pass table below is the seam the optimizer fills: today it holds `verify`.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontend/Diagnostics.h"
#include "compiler/ir/Dlmir.h"
#include "compiler/ir/DotWriter.h"
#include "compiler/ir/Verifier.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace dlm;
using namespace dlm::graph;

namespace {

/// What every pass sees besides the graph.
struct PassContext {
  DiagnosticEngine &diag;
  NodeLocator locate;
};

enum class PassResult { Unchanged, Changed, Failed };

struct PassEntry {
  const char *name;
  const char *help;
  PassResult (*run)(Graph &, PassContext &);
};

PassResult runVerify(Graph &g, PassContext &ctx) {
  return verifyGraph(g, ctx.diag, ctx.locate) ? PassResult::Unchanged : PassResult::Failed;
}

const PassEntry kPasses[] = {
    {"verify", "check the graph's structural rules (docs/ir.md \"Verifier\")", runVerify},
};

const PassEntry *findPass(llvm::StringRef name) {
  for (const PassEntry &p : kPasses)
    if (name == p.name)
      return &p;
  return nullptr;
}

struct Options {
  std::string input;
  std::string output = "-";
  std::vector<const PassEntry *> passes;
  bool verifyEach = false;
  bool printLocs = false;
  bool dot = false;
};

void printUsage(llvm::raw_ostream &os) {
  os << "usage: dlm-opt FILE.dlmir|- [--passes=P1,P2,...] [--verify-each] [--print-locs]\n"
        "               [--emit=dlmir|dot] [-o OUT]\n"
        "passes:\n";
  for (const PassEntry &p : kPasses)
    os << "  " << p.name << "  " << p.help << "\n";
}

/// Returns 0 when the command line was understood, else the exit status to use.
int parseArgs(int argc, char **argv, Options &opts) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      printUsage(llvm::outs());
      return -1;
    }
    if (arg.consume_front("--passes=")) {
      llvm::SmallVector<llvm::StringRef> names;
      arg.split(names, ',', -1, false);
      for (llvm::StringRef n : names) {
        const PassEntry *p = findPass(n);
        if (!p) {
          llvm::errs() << "dlm-opt: error: unknown pass '" << n << "'\n";
          printUsage(llvm::errs());
          return 2;
        }
        opts.passes.push_back(p);
      }
    } else if (arg == "--verify-each") {
      opts.verifyEach = true;
    } else if (arg == "--print-locs") {
      opts.printLocs = true;
    } else if (arg == "--emit=dot" || arg == "--emit=dlmir") {
      opts.dot = arg == "--emit=dot";
    } else if (arg == "-o" && i + 1 < argc) {
      opts.output = argv[++i];
    } else if (arg != "-" && arg.starts_with("-")) {
      llvm::errs() << "dlm-opt: error: unknown option '" << arg << "'\n";
      printUsage(llvm::errs());
      return 2;
    } else if (opts.input.empty()) {
      opts.input = arg.str();
    } else {
      llvm::errs() << "dlm-opt: error: more than one input file\n";
      return 2;
    }
  }
  if (opts.input.empty()) {
    printUsage(llvm::errs());
    return 2;
  }
  return 0;
}

std::optional<unsigned> readInput(DiagnosticEngine &diag, const std::string &path) {
  if (path != "-")
    return diag.addFile(path);
  auto buf = llvm::MemoryBuffer::getSTDIN();
  if (!buf) {
    diag.error("cannot read standard input: " + buf.getError().message());
    return std::nullopt;
  }
  return diag.addBuffer(std::move(*buf));
}

int run(const Options &opts) {
  DiagnosticEngine diag(llvm::errs(), "dlm-opt");
  std::optional<unsigned> buffer = readInput(diag, opts.input);
  if (!buffer)
    return 1;
  std::vector<llvm::SMLoc> opLocs;
  std::optional<Graph> g = parseGraph(diag, *buffer, &opLocs);
  if (!g)
    return 1;
  // Passes may add nodes; those have no place in the input text.
  auto locate = [&](NodeId id) { return id < opLocs.size() ? opLocs[id] : llvm::SMLoc(); };
  PassContext ctx{diag, locate};
  if (!verifyGraph(*g, diag, locate))
    return 1;
  for (const PassEntry *pass : opts.passes) {
    if (pass->run(*g, ctx) == PassResult::Failed)
      return 1;
    if (opts.verifyEach && !verifyGraph(*g, diag, locate)) {
      diag.error(llvm::Twine("the graph is invalid after pass '") + pass->name + "'");
      return 1;
    }
  }
  std::error_code ec;
  llvm::raw_fd_ostream out(opts.output, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    diag.error("cannot write '" + opts.output + "': " + ec.message());
    return 1;
  }
  if (opts.dot)
    writeDot(*g, out);
  else
    printGraph(*g, out, PrintOptions{opts.printLocs});
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  if (int status = parseArgs(argc, argv, opts))
    return status < 0 ? 0 : status;
  return run(opts);
}
