//===- compiler/driver/Compilation.cpp - The compiler pipeline ------------===//
#include "compiler/driver/Compilation.h"

#include "compiler/autodiff/Autodiff.h"
#include "compiler/codegen/Codegen.h"
#include "compiler/codegen/Nvptx.h"
#include "compiler/driver/CrashGuard.h"
#include "compiler/frontend/ASTDumper.h"
#include "compiler/frontend/Parse.h"
#include "compiler/ir/Dlmir.h"
#include "compiler/ir/DotWriter.h"
#include "compiler/lower/Lower.h"
#include "compiler/opt/Pipeline.h"
#include "compiler/sema/Sema.h"
#include "runtime/DeviceSelect.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>

namespace dlm {

namespace {

/// The stages this build has, in order. A stage that lands appends itself here.
constexpr Stage kStages[] = {Stage::Parse, Stage::Sema, Stage::Autodiff, Stage::Lower, Stage::Opt};

/// What the crash banner says a stage was doing.
const char *stageActivity(Stage stage) {
  switch (stage) {
  case Stage::Lex:
    return "lexing";
  case Stage::Parse:
    return "parsing";
  case Stage::Sema:
    return "checking";
  case Stage::Lower:
    return "lowering";
  case Stage::Autodiff:
    return "differentiating";
  case Stage::Opt:
    return "optimising";
  case Stage::Codegen:
    return "generating code for";
  }
  return "compiling";
}

/// The stage's name in --time-passes output.
const char *stageName(Stage stage) {
  switch (stage) {
  case Stage::Lex:
    return "lex";
  case Stage::Parse:
    return "parse";
  case Stage::Sema:
    return "sema";
  case Stage::Lower:
    return "lower";
  case Stage::Autodiff:
    return "autodiff";
  case Stage::Opt:
    return "opt";
  case Stage::Codegen:
    return "codegen";
  }
  return "compile";
}

std::string escapeTokenText(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else
      out += c;
  }
  return out;
}

bool printTokens(Compilation &compilation, llvm::raw_ostream &os) {
  DiagnosticEngine &diag = compilation.getDiagnostics();
  for (const TokenInfo &token : tokenize(diag, compilation.getMainBuffer())) {
    auto [line, column] = diag.getLineAndColumn(token.range.Start);
    os << token.kind;
    if (!token.text.empty())
      os << " '" << escapeTokenText(token.text) << "'";
    os << " <" << line << ":" << column << ">\n";
  }
  return !diag.hasErrors();
}

bool printAST(Compilation &compilation, llvm::raw_ostream &os) {
  dumpAST(*compilation.getModule(), compilation.getDiagnostics(), os);
  return true;
}

bool printSSA(Compilation &compilation, llvm::raw_ostream &os) {
  ssa::PrintOptions options;
  options.printLocs = compilation.getOptions().printLocs;
  options.diags = &compilation.getDiagnostics();
  ssa::print(*compilation.getProgram(), os, options);
  return true;
}

/// The functions autodiff made (docs/autodiff.md "Printed form"): each `grad` op's derivative
/// and the flattened checkpointed functions they call, in the order they were made.
bool printGradSSA(Compilation &compilation, llvm::raw_ostream &os) {
  ssa::PrintOptions options;
  options.printLocs = compilation.getOptions().printLocs;
  options.diags = &compilation.getDiagnostics();
  ssa::print(compilation.getDifferentiator()->program(), os, options);
  return true;
}

/// The graph; with `gradLocs`, each gradient node's forward op and location (`--emit=grad`:
/// `loc(... grad_of "op")`).
bool printGraphText(Compilation &compilation, llvm::raw_ostream &os, bool gradLocs) {
  graph::PrintOptions options;
  options.printLocs = compilation.getOptions().printLocs;
  options.printGradLocs = gradLocs;
  graph::printGraph(*compilation.getGraph(), os, options);
  return true;
}

bool printGraphIR(Compilation &compilation, llvm::raw_ostream &os) {
  return printGraphText(compilation, os, false);
}

bool printGradIR(Compilation &compilation, llvm::raw_ostream &os) {
  return printGraphText(compilation, os, true);
}

bool printPTX(Compilation &compilation, llvm::raw_ostream &os) {
  return codegen::printPtx(*compilation.getGraph(), compilation.getDiagnostics(), os);
}

bool printDot(Compilation &compilation, llvm::raw_ostream &os) {
  graph::writeDot(*compilation.getGraph(), os);
  return true;
}

bool printLLVMIR(Compilation &compilation, llvm::raw_ostream &os) {
  codegen::CodegenOptions options;
  options.optLevel = compilation.getOptions().optLevel;
  return codegen::printLLVM(*compilation.getGraph(), compilation.getDiagnostics(), options, os) ==
         codegen::kExitOk;
}

const EmitKindInfo kEmitKinds[] = {
    {EmitKind::Tokens, "tokens", "the token stream (with INDENT/DEDENT)", Stage::Lex, printTokens},
    {EmitKind::AST, "ast", "the abstract syntax tree with source ranges", Stage::Parse, printAST},
    {EmitKind::SSA, "ssa", "typed structured SSA (names, types, shapes)", Stage::Sema, printSSA},
    {EmitKind::GradSSA, "grad-ssa", "the derivative functions autodiff made (SSA)", Stage::Autodiff,
     printGradSSA},
    {EmitKind::Graph, "graph", "the dataflow graph IR", Stage::Lower, printGraphIR},
    // The same graph; gradient nodes are marked with the op they differentiate.
    {EmitKind::Grad, "grad", "the graph after differentiation", Stage::Lower, printGradIR},
    {EmitKind::Opt, "opt", "the graph after optimisation", Stage::Opt, printGraphIR},
    {EmitKind::LLVM, "llvm", "the generated LLVM IR", Stage::Codegen, printLLVMIR},
    {EmitKind::PTX, "ptx", "the GPU (sm_90 PTX) kernels of the fused nodes", Stage::Codegen,
     printPTX},
    {EmitKind::Dot, "dot", "the optimised graph as Graphviz dot", Stage::Opt, printDot},
};

} // namespace

llvm::ArrayRef<EmitKindInfo> getEmitKinds() { return kEmitKinds; }

const EmitKindInfo *findEmitKind(llvm::StringRef name) {
  for (const EmitKindInfo &info : kEmitKinds)
    if (info.name == name)
      return &info;
  return nullptr;
}

const EmitKindInfo &getEmitKindInfo(EmitKind kind) {
  for (const EmitKindInfo &info : kEmitKinds)
    if (info.kind == kind)
      return info;
  assert(false && "EmitKind::None has no table entry");
  return kEmitKinds[0];
}

Compilation::Compilation(CompilerOptions options, DiagnosticEngine &diag)
    : options(std::move(options)), diag(diag) {}

Compilation::~Compilation() = default;

bool Compilation::loadInput() {
  if (!options.parts.empty()) {
    for (const SourcePart &part : options.parts)
      partBuffers.push_back(diag.addBuffer(part.text, part.name));
    mainBuffer = partBuffers.front();
    return true;
  }
  if (options.input != "-") {
    std::optional<unsigned> buffer = diag.addFile(options.input);
    mainBuffer = buffer.value_or(0);
    return buffer.has_value();
  }
  auto buffer = llvm::MemoryBuffer::getSTDIN();
  if (!buffer)
    return diag.error("cannot read standard input: " + buffer.getError().message());
  mainBuffer =
      diag.addBuffer(llvm::MemoryBuffer::getMemBufferCopy((*buffer)->getBuffer(), "<stdin>"));
  return true;
}

bool Compilation::run(llvm::raw_ostream &os) {
  const EmitKindInfo *emit =
      options.emit == EmitKind::None ? nullptr : &getEmitKindInfo(options.emit);
  Stage target = emit ? emit->stage : std::end(kStages)[-1];
  for (Stage stage : kStages) {
    if (stage > target)
      break;
    setCrashContext(stageActivity(stage));
    auto start = std::chrono::steady_clock::now();
    std::clock_t startCpu = std::clock();
    if (!runStage(stage))
      return false;
    if (options.timePasses)
      llvm::errs() << llvm::format(
          "time: %-10s %9.3f ms (cpu %.3f ms)\n", stageName(stage),
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count(),
          (std::clock() - startCpu) * 1e3 / CLOCKS_PER_SEC);
    lastStage = stage;
    ranAny = true;
    if (options.printAfterAll)
      for (const EmitKindInfo &info : kEmitKinds)
        if (info.stage == stage && info.print && info.kind != EmitKind::Tokens) {
          llvm::errs() << "// ----- " << info.name << " after " << stageActivity(stage)
                       << " ----- //\n";
          info.print(*this, llvm::errs());
        }
  }
  if (options.debugCrash)
    std::abort(); // --debug-crash: proves that a compiler crash ends in the banner and exit 70
  setCrashContext("printing");
  return emit ? emit->print(*this, os) : true;
}

bool Compilation::runStage(Stage stage) {
  switch (stage) {
  case Stage::Parse:
    return runParse();
  case Stage::Sema:
    return runSema();
  case Stage::Autodiff:
    return runAutodiff();
  case Stage::Lower:
    return runLower();
  case Stage::Opt:
    return runOpt();
  default:
    return true; // not in this build (kStages does not list it)
  }
}

bool Compilation::runSema() {
  SemaOptions semaOptions;
  semaOptions.stdlibDir = findStdlibDir(nullptr);
  semaOptions.parseFile = [this](llvm::StringRef path, llvm::SMRange importLoc) {
    return parseFile(diag, path, importLoc);
  };
  semaOptions.entry = options.entry;
  semaOptions.constants = options.constants;
  program = analyze(*module, diag, semaOptions);
  return program != nullptr;
}

/// The derivative of every `grad` op lowering will meet (compiler/autodiff); lowering then
/// reads them from the same Differentiator.
bool Compilation::runAutodiff() {
  differentiator = std::make_unique<autodiff::Differentiator>(diag);
  return differentiator->differentiateProgram(*program);
}

bool Compilation::runLower() {
  lower::LowerOptions lowerOptions;
  lowerOptions.differentiator = differentiator.get();
  lowerOptions.entry = options.entry.has_value();
  if (lowerOptions.entry && !program->entry)
    return diag.error("internal error: sema made no entry for '" + options.entry->def + "'");
  graphIR = lower::lowerToGraph(*program, diag, lowerOptions);
  return graphIR.has_value();
}

/// The -O level's pass pipeline (compiler/opt, docs/opt.md); --print-after-all prints the graph
/// after every pass.
bool Compilation::runOpt() {
  std::vector<const opt::PassInfo *> passes = opt::pipelineForLevel(options.optLevel);
  if (!options.passes.empty()) {
    passes.clear();
    llvm::SmallVector<llvm::StringRef> names;
    llvm::StringRef(options.passes).split(names, ',', -1, false);
    for (llvm::StringRef name : names) {
      passes.push_back(opt::findPass(name));
      if (!passes.back())
        return diag.error("unknown pass '" + name + "' (dlm-opt --help lists them)");
    }
  }
  opt::PassContext ctx(diag);
  ctx.rematBudget = options.rematBudget;
  ctx.placementCost = options.placementCost;
  // Placement runs last, for the device --device selects; on the CPU alone there is nothing to
  // place (docs/cuda.md).
  if (rt::Status s = rt::selectDevice(options.device, ctx.device); !s)
    return diag.error(s.message());
  bool placed = std::any_of(passes.begin(), passes.end(), [](const opt::PassInfo *p) {
    return llvm::StringRef(p->name) == "placement";
  });
  if (ctx.device != rt::kCpuDevice && !placed)
    passes.push_back(opt::findPass("placement"));
  if (ctx.device == rt::kCudaDevice)
    codegen::installPtxCompiler(); // the CUDA backend compiles `fused` bodies with it

  opt::RunOptions runOptions;
  runOptions.printAfterAll = options.printAfterAll;
  runOptions.printLocs = options.printLocs;
  return opt::runPasses(*graphIR, passes, ctx, runOptions);
}

namespace {

/// Drops the top-level statements that are neither defs nor imports (an entry's compilation).
void keepDefinitions(Module &module) {
  Body &body = module.getBody();
  body.erase(std::remove_if(body.begin(), body.end(),
                            [](const Stmt *s) {
                              return !llvm::isa<FunctionDefStmt>(s) && !llvm::isa<ImportStmt>(s);
                            }),
             body.end());
}

} // namespace

bool Compilation::runParse() {
  bool ok =
      options.parts.empty() ? (module = parseBuffer(diag, mainBuffer)) != nullptr : parseParts();
  if (ok && options.entry)
    keepDefinitions(*module);
  return ok;
}

namespace {

/// `EXPR` becomes `name = EXPR` when it is the module's one statement, both at EXPR's range.
void bindValue(Module &part, const std::string &name) {
  Body &body = part.getBody();
  auto *statement = body.size() == 1 ? llvm::dyn_cast<ExprStmt>(body.front()) : nullptr;
  if (!statement)
    return;
  Expr *value = statement->getExpr();
  auto *target = part.getContext().create<NameExpr>(value->getRange(), name);
  body.front() = part.getContext().create<AssignStmt>(statement->getRange(), target, value);
}

} // namespace

bool Compilation::parseParts() {
  bool ok = true;
  for (size_t i = 0; i < partBuffers.size(); ++i) {
    std::unique_ptr<Module> part = parseBuffer(diag, partBuffers[i], options.parts[i].indent);
    if (!part) {
      ok = false; // parse the others too: every syntax error is reported
      continue;
    }
    if (!options.parts[i].bindValueTo.empty())
      bindValue(*part, options.parts[i].bindValueTo);
    if (!module)
      module = std::move(part);
    else
      module->append(std::move(part));
  }
  return ok;
}

} // namespace dlm
