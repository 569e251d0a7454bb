//===- bench/sema/SemaBench.cpp - Semantic analysis time --------------------===//
//
// Time for sema (names, SSA construction, type and shape inference) on a generated program of
// about 10 000 lines: 970 defs of 9 lines — a matmul, an if/else on a run-time condition, a
// for loop with a carried tensor — each called once from the top level, where every 20 calls
// an if/else and a while loop run over the growing set of top-level variables. Parsing happens
// once, outside the timed loop; the figure is sema alone (analyze() from compiler/sema/Sema.h,
// including the SSA verifier it runs at the end).
//
//===----------------------------------------------------------------------===//
#include "compiler/frontend/Parse.h"
#include "compiler/sema/Sema.h"

#include <benchmark/benchmark.h>

#include <sstream>

namespace dlm {
namespace {

std::string generateProgram(int defs) {
  std::ostringstream s;
  for (int i = 0; i < defs; ++i) {
    s << "def f" << i << "(x, w):\n"
      << "    h = x @ w\n"
      << "    if sum(h) > 0.0:\n"
      << "        h = relu(h)\n"
      << "    else:\n"
      << "        h = tanh(h) + " << i << ".0\n"
      << "    for j in range(3):\n"
      << "        h = h * 0.5 + 1.0\n"
      << "    return h\n";
  }
  s << "x = zeros(8, 16)\nw = ones(16, 16)\nacc = zeros(8, 16)\n";
  for (int i = 0; i < defs; ++i) {
    s << "y" << i << " = f" << i << "(x, w)\n";
    if (i % 20 != 19)
      continue;
    s << "if sum(y" << i << ") > 1.0:\n"
      << "    acc = acc + y" << i << "\n"
      << "else:\n"
      << "    acc = acc - y" << i << "\n"
      << "k = 0\n"
      << "while k < 3:\n"
      << "    acc = acc * 0.9\n"
      << "    k += 1\n";
  }
  s << "print(acc)\n";
  return s.str();
}

void BM_Sema(benchmark::State &state) {
  std::string source = generateProgram(int(state.range(0)));
  std::string sink;
  llvm::raw_string_ostream errs(sink);
  DiagnosticEngine diags(errs, "sema_bench");
  unsigned buffer = diags.addBuffer(source, "generated.dlm");
  std::unique_ptr<Module> module = parseBuffer(diags, buffer);
  if (!module) {
    state.SkipWithError(("generated program does not parse: " + sink).c_str());
    return;
  }
  SemaOptions options;
  options.stdlibDir = findStdlibDir(nullptr);
  size_t ops = 0;
  for (auto _ : state) {
    std::unique_ptr<ssa::Program> program = analyze(*module, diags, options);
    if (!program) {
      state.SkipWithError(("sema reported errors: " + sink).c_str());
      return;
    }
    ops = program->functions.size();
    benchmark::DoNotOptimize(program);
  }
  state.counters["lines"] = double(std::count(source.begin(), source.end(), '\n'));
  state.counters["functions"] = double(ops);
}

BENCHMARK(BM_Sema)->Arg(970)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace dlm

BENCHMARK_MAIN();
