//===- bench/frontend/ParseBench.cpp - Parse throughput -------------------===//
//
// Lines per second through the whole frontend — UTF-8 check, lexing with INDENT/DEDENT,
// the two-stage (SLL, then LL only on failure) ANTLR parse, AST building and the nesting
// check — on a generated program of 50 016 lines (1 042 blocks of 48) using every construct:
// annotated defs, if/elif/else, while, for over range and over tuples, calls with keyword
// arguments, slicing, tensor literals, tuples, comments and blank lines. BM_Tokenize measures
// the lexer alone. Each iteration parses into a fresh DiagnosticEngine; ANTLR's prediction cache is
// per-process, so iterations after the first are warm (bench/run.sh also times a cold
// `dlmc --emit=ast` process on the same program).
//
// `parse_bench --write=FILE` writes the generated program instead of benchmarking.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontend/Parse.h"

#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string_view>

namespace dlm {
namespace {

/// One 48-line block of realistic code; `i` makes names distinct.
void writeBlock(std::ostringstream &s, int i) {
  s << "# block " << i << ": a layer, its loss and a training step\n"
    << "def layer" << i << "(x: Tensor[B, 784], w: Tensor[f32, 784, H], b: Tensor[H],\n"
    << "           act: bool = True) -> Tensor[B, H]:\n"
    << "    h = x @ w + b\n"
    << "    if act:\n"
    << "        h = relu(h)\n"
    << "    elif sum(h) > 0.5 * " << i << ".0:\n"
    << "        h = tanh(h) ** 2 - h / 3.0\n"
    << "    else:\n"
    << "        h = -h\n"
    << "    return h\n"
    << "\n"
    << "def loss" << i << "(params, x, y):\n"
    << "    w, b = params\n"
    << "    logits = layer" << i << "(x, w, b, act=False)\n"
    << "    return cross_entropy(logits, y) + 0.01 * sum(w * w)\n"
    << "\n"
    << "def step" << i << "(params, state, x, y, lr=0.1):\n"
    << "    g = grad(loss" << i << ")(params, x, y)\n"
    << "    new_params = ()\n"
    << "    for p in (params[0], params[1]):\n"
    << "        p = p - lr * g[0]\n"
    << "    k = 0\n"
    << "    while k < 10 and norm(g[1]) > 1e-3:\n"
    << "        k += 1\n"
    << "        if k % 2 == 0:\n"
    << "            continue\n"
    << "        lr *= 0.5\n"
    << "    return (params[0] - lr * g[0], params[1] - lr * g[1]), state\n"
    << "\n"
    << "x" << i << " = randn(64, 784)\n"
    << "y" << i << " = arange(64) % 10\n"
    << "w" << i << " = randn(784, 32) * 0.01\n"
    << "b" << i << " = zeros(32)\n"
    << "t" << i << " = tensor([[1.0, 2.0, 3.0],\n"
    << "             [4.0, 5.0, 6.0]])\n"
    << "s" << i << " = x" << i << "[:, 0:10] + x" << i << "[::2, -10:].T[0]\n"
    << "params" << i << " = (w" << i << ", b" << i << ")\n"
    << "state" << i << " = ()\n"
    << "for epoch in range(0, 3, 1):\n"
    << "    params" << i << ", state" << i << " = step" << i << "(params" << i << ", state" << i
    << ", x" << i << ", y" << i << ", lr=0.05)\n"
    << "    l = loss" << i << "(params" << i << ", x" << i << ", y" << i << ")\n"
    << "    print(\"epoch\", epoch, \"loss\", l, x" << i << ".shape)\n"
    << "assert sum(t" << i << ") == 21.0, \"tensor literal sum\"\n"
    << "m" << i << " = mean(s" << i << ", axis=1, keepdims=True) if True else \\\n"
    << "    max(s" << i << ")\n"
    << "r" << i << " = reshape(x" << i << ", 8, -1).astype(f64)\n"
    << "\n";
}

constexpr int kLinesPerBlock = 48;

/// At least `lines` lines: whole blocks, rounded up.
std::string generateProgram(int lines) {
  std::ostringstream s;
  for (int i = 0; i < (lines + kLinesPerBlock - 1) / kLinesPerBlock; ++i)
    writeBlock(s, i);
  return s.str();
}

size_t countLines(std::string_view text) {
  size_t lines = 0;
  for (char c : text)
    lines += c == '\n';
  return lines;
}

void BM_Parse(benchmark::State &state) {
  std::string source = generateProgram(int(state.range(0)));
  for (auto _ : state) {
    std::string errors;
    llvm::raw_string_ostream os(errors);
    DiagnosticEngine diag(os, "parse_bench");
    std::unique_ptr<Module> module = parseBuffer(diag, diag.addBuffer(source, "generated.dlm"));
    if (!module) {
      state.SkipWithError(("generated program does not parse: " + errors.substr(0, 400)).c_str());
      return;
    }
    benchmark::DoNotOptimize(module.get());
  }
  state.counters["lines"] = double(countLines(source));
  state.counters["lines/s"] =
      benchmark::Counter(double(countLines(source)), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Tokenize(benchmark::State &state) {
  std::string source = generateProgram(int(state.range(0)));
  for (auto _ : state) {
    std::string errors;
    llvm::raw_string_ostream os(errors);
    DiagnosticEngine diag(os, "parse_bench");
    std::vector<TokenInfo> tokens = tokenize(diag, diag.addBuffer(source, "generated.dlm"));
    benchmark::DoNotOptimize(tokens.data());
  }
  state.counters["lines/s"] =
      benchmark::Counter(double(countLines(source)), benchmark::Counter::kIsIterationInvariantRate);
}

// CPU time, not wall time: the machines this runs on are shared, and rates (lines/s) are
// computed from the reported time.
BENCHMARK(BM_Parse)->Arg(50000)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_Tokenize)->Arg(50000)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

} // namespace
} // namespace dlm

int main(int argc, char **argv) {
  if (argc == 2 && std::string_view(argv[1]).starts_with("--write=")) {
    std::ofstream(std::string(argv[1] + 8)) << dlm::generateProgram(50000);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
