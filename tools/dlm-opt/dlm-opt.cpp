//===- tools/dlm-opt/dlm-opt.cpp - Passes on textual graph IR -------------===//
//
// `dlm-opt FILE.dlmir [--passes=a,b | -O0..-O3] [--verify-each] [--print-after-all]
//         [--print-after=NAME] [--stats] [--print-locs] [--device=D] [--emit=dlmir|dot] [-o OUT]`
// parses a graph, verifies it, runs the named passes (compiler/opt/Passes.def) or an
// optimisation level's pipeline in order and prints the result — the way pass tests drive one
// pass in isolation (DESIGN.md "Textual IR"). The verifier always runs on the input; with
// --verify-each it also runs after every pass. Exit status: 0 ok, 1 invalid input (diagnostics
// on stderr), 2 usage.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/Dlmir.h"
#include "compiler/ir/DotWriter.h"
#include "compiler/ir/FusedOp.h"
#include "compiler/ir/Verifier.h"
#include "compiler/opt/Pipeline.h"
#include "compiler/support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace dlm;
using namespace dlm::graph;

namespace {

struct Options {
  std::string input;
  std::string output = "-";
  std::vector<const opt::PassInfo *> passes;
  opt::RunOptions run;
  bool stats = false;
  bool dot = false;
  std::vector<std::string> outputs; ///< --outputs=%N,%N#k: values of the parsed graph (for prune)
  int64_t rematBudget = 0;          ///< --remat-budget=BYTES (for remat)
  std::string device = "cpu";       ///< --device=cpu|cuda|fake (for placement)
  bool placementCost = true;        ///< --placement-cost=on|off (for placement)
};

void printUsage(llvm::raw_ostream &os) {
  os << "usage: dlm-opt FILE.dlmir|- [--passes=P1,P2,... | -O0..-O3] [--verify-each]\n"
        "               [--print-after-all] [--print-after=PASS] [--stats] [--print-locs]\n"
        "               [--outputs=%N,%N#K,...] [--remat-budget=BYTES]\n"
        "               [--emit=dlmir|dot] [-o OUT]\n"
        "  --outputs: the values 'prune' keeps (node N = the N-th node of the input, as printed)\n"
        "  --remat-budget: the planned peak bytes 'remat' recomputes values to stay under\n"
        "  --device=cpu|cuda|fake: the device 'placement' places for (fake: a testing stand-in\n"
        "                          for cuda, docs/cuda.md)\n"
        "  --placement-cost=on|off: on (default): ops whose copies cost more than they save\n"
        "                          stay on the CPU\n"
        "passes (printouts and --stats go to stderr):\n";
  opt::printPassList(os);
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
        const opt::PassInfo *p = opt::findPass(n);
        if (!p) {
          llvm::errs() << "dlm-opt: error: unknown pass '" << n << "'\n";
          printUsage(llvm::errs());
          return 2;
        }
        opts.passes.push_back(p);
      }
    } else if (arg.size() == 3 && arg.starts_with("-O") && arg[2] >= '0' && arg[2] <= '3') {
      for (const opt::PassInfo *p : opt::pipelineForLevel(static_cast<unsigned>(arg[2] - '0')))
        opts.passes.push_back(p);
    } else if (arg == "--verify-each") {
      opts.run.verifyEach = true;
    } else if (arg == "--print-after-all") {
      opts.run.printAfterAll = true;
    } else if (arg.consume_front("--print-after=")) {
      if (!opt::findPass(arg)) {
        llvm::errs() << "dlm-opt: error: unknown pass '" << arg << "'\n";
        return 2;
      }
      opts.run.printAfter = arg.str();
    } else if (arg.consume_front("--outputs=")) {
      llvm::SmallVector<llvm::StringRef> names;
      arg.split(names, ',', -1, false);
      for (llvm::StringRef n : names)
        opts.outputs.push_back(n.str());
    } else if (arg.consume_front("--remat-budget=")) {
      if (arg.getAsInteger(10, opts.rematBudget) || opts.rematBudget <= 0) {
        llvm::errs() << "dlm-opt: error: --remat-budget wants a positive number of bytes, not '"
                     << arg << "'\n";
        return 2;
      }
    } else if (arg.consume_front("--device=")) {
      if (arg != "cpu" && arg != "cuda" && arg != "fake") {
        llvm::errs() << "dlm-opt: error: unknown device '" << arg
                     << "' (expected cpu, cuda or fake)\n";
        return 2;
      }
      opts.device = arg.str();
    } else if (arg == "--placement-cost=on" || arg == "--placement-cost=off") {
      opts.placementCost = arg.ends_with("=on");
    } else if (arg == "--stats") {
      opts.stats = true;
    } else if (arg == "--print-locs") {
      opts.run.printLocs = true;
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

/// Reads `%N` or `%N#K` as output K of node N of `g`; reports a bad one.
std::optional<ValueRef> parseOutput(DiagnosticEngine &diag, const Graph &g, llvm::StringRef text) {
  llvm::StringRef rest = text;
  unsigned node = 0, port = 0;
  bool ok =
      rest.consume_front("%") && !rest.consumeInteger(10, node) &&
      (rest.empty() || (rest.consume_front("#") && !rest.consumeInteger(10, port) && rest.empty()));
  if (!ok) {
    diag.error("--outputs: '" + text + "' is not a value (%N or %N#K)");
    return std::nullopt;
  }
  if (node >= g.numNodes() || port >= g.node(node).numResults()) {
    diag.error("--outputs: the graph has no value '" + text + "'");
    return std::nullopt;
  }
  return ValueRef{node, port};
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
  if (!verifyGraph(*g, diag, locate))
    return 1;
  opt::PassContext ctx(diag, locate);
  for (const std::string &text : opts.outputs) {
    std::optional<ValueRef> v = parseOutput(diag, *g, text);
    if (!v)
      return 1;
    ctx.outputs.push_back(*v);
  }
  ctx.rematBudget = opts.rematBudget;
  ctx.device = opts.device;
  ctx.placementCost = opts.placementCost;
  bool ok = opt::runPasses(*g, opts.passes, ctx, opts.run);
  if (opts.stats)
    opt::printStats(ctx.stats, llvm::errs());
  if (!ok)
    return 1;
  std::error_code ec;
  llvm::raw_fd_ostream out(opts.output, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    diag.error("cannot write '" + opts.output + "': " + ec.message());
    return 1;
  }
  if (opts.dot)
    writeDot(*g, out);
  else
    printGraph(*g, out, PrintOptions{opts.run.printLocs});
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  if (int status = parseArgs(argc, argv, opts))
    return status < 0 ? 0 : status;
  return run(opts);
}
