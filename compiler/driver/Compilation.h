//===- compiler/driver/Compilation.h - The compiler pipeline --------------===//
//
// One Compilation takes one input file through the stages of this build, in order, stopping
// at the first that reports an error. The tools (dlmc, dlm, later the REPL) only set options
// and call run(); every stage plugs in here, one at a time:
//   1. add its Stage value and a row in the stage table (Compilation.cpp),
//   2. add a run<Stage>() member that reads the previous stage's result and stores its own,
//   3. fill in the printer of its --emit= kind in the emit table.
// An --emit= kind whose printer is still null answers "not available in this build yet".
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_DRIVER_COMPILATION_H
#define DLM_COMPILER_DRIVER_COMPILATION_H

#include "compiler/frontend/AST.h"
#include "compiler/ir/Graph.h"
#include "compiler/sema/SSA.h"
#include "compiler/sema/Sema.h"
#include "compiler/support/Diagnostics.h"
#include "runtime/Devices.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dlm {

namespace autodiff {
class Differentiator;
}

/// The stages of the pipeline, in order (docs/architecture.md).
/// Autodiff transforms sema's structured SSA (docs/autodiff.md), so it runs before lowering.
enum class Stage : uint8_t { Lex, Parse, Sema, Autodiff, Lower, Opt, Codegen };

/// What `--emit=` prints.
enum class EmitKind : uint8_t { None, Tokens, AST, SSA, GradSSA, Graph, Grad, Opt, LLVM, PTX, Dot };

/// One piece of a program held in memory (CompilerOptions::parts).
struct SourcePart {
  std::string name; ///< what positions in it are reported under: "<input>", a file's path
  std::string text;
  /// When set and the part is one expression statement, that statement becomes an assignment
  /// of its value to this name (the REPL prints the value, or shows its type).
  std::string bindValueTo;
  /// The column its top-level statements start at, 0-based: a def cut out of an indented
  /// block of another file (the Python module's @dlm.jit) keeps that file's columns.
  unsigned indent = 0;
};

/// Options shared by every tool that compiles.
struct CompilerOptions {
  std::string input; ///< a path, or "-" for standard input
  /// When not empty, the program instead: these parts' top-level statements in order, each
  /// part its own SourceMgr buffer, so that positions count from each part's first line and
  /// carry its name (the REPL's definitions, restored variables and input; docs/repl.md).
  std::vector<SourcePart> parts;
  EmitKind emit = EmitKind::None; ///< None: run every stage, print nothing
  unsigned optLevel = 2;          ///< -O0 .. -O3
  std::string passes;             ///< --passes=a,b: these graph passes instead of -O's pipeline
  int64_t rematBudget = 0;        ///< --remat-budget=BYTES for the `remat` pass (0: none)
  bool printAfterAll = false;     ///< print each stage's result to stderr after it runs
  bool verifyDiagnostics = false; ///< compare diagnostics with expected-* comments
  bool printLocs = false;         ///< --print-locs: source locations in printed IR
  ColorMode color = ColorMode::Auto;
  bool debugCrash = false;          ///< hidden: crash on purpose (tests the crash banner)
  bool debugCrashJitWorker = false; ///< hidden: the JIT's second compile thread crashes on purpose
  bool timePasses = false;          ///< print each stage's time to stderr ("time: STAGE MS ms")
  /// --device: where the program runs; the Opt stage resolves it (runtime/DeviceSelect.h) and
  /// places the graph for it (docs/cuda.md).
  rt::DeviceRequest device = rt::DeviceRequest::Auto;
  /// --placement-cost=off: place every op the device has a kernel for there, however small.
  bool placementCost = true;
  /// `dlm run`: once the exit status is known and every output stream is flushed, compileAndThen
  /// ends the process with _exit instead of tearing down what the run built (docs/architecture.md
  /// "Process exit").
  bool exitWhenDone = false;
  /// The embedding API (compiler/driver/Entry.h): lower this def, specialised at these
  /// parameter types, as an entry graph (`arg` and `retval` nodes) instead of main. The main
  /// file's top-level statements other than defs and imports are dropped after parsing: a host
  /// calls its defs and never runs its script.
  std::optional<SemaOptions::Entry> entry;
  /// Names the program reads as constants (SemaOptions::constants; the embedding API's
  /// dlm_options.constants).
  std::map<std::string, SemaOptions::Constant> constants;
};

class Compilation;

/// One `--emit=` kind: its name, what it shows, the stage that produces it, and its printer
/// (null while that stage is not in this build).
struct EmitKindInfo {
  EmitKind kind;
  llvm::StringLiteral name;
  llvm::StringLiteral description;
  Stage stage;
  bool (*print)(Compilation &compilation, llvm::raw_ostream &os);
};

/// Every `--emit=` kind, in pipeline order.
llvm::ArrayRef<EmitKindInfo> getEmitKinds();
/// The kind named `name`, or null.
const EmitKindInfo *findEmitKind(llvm::StringRef name);
const EmitKindInfo &getEmitKindInfo(EmitKind kind);

class Compilation {
public:
  Compilation(CompilerOptions options, DiagnosticEngine &diag);
  ~Compilation();

  /// Reads the input into the diagnostics engine; false (reported) when it cannot be read.
  bool loadInput();
  /// Runs the stages the requested output needs (all of them without --emit) and prints
  /// that output to `os`. Returns false when a stage reported an error.
  bool run(llvm::raw_ostream &os);

  const CompilerOptions &getOptions() const { return options; }
  DiagnosticEngine &getDiagnostics() { return diag; }
  /// The SourceMgr buffer of the input, or of the first part (valid after loadInput).
  unsigned getMainBuffer() const { return mainBuffer; }
  /// The AST of the input (after the parse stage).
  Module *getModule() const { return module.get(); }
  /// The typed SSA of the program (after the sema stage).
  ssa::Program *getProgram() const { return program.get(); }
  /// The derivatives of the program's `grad` ops and what they call (after the autodiff stage).
  autodiff::Differentiator *getDifferentiator() const { return differentiator.get(); }
  /// The dataflow graph (after the lower stage; later stages transform it in place).
  graph::Graph *getGraph() { return graphIR ? &*graphIR : nullptr; }
  /// Whether the stage ran in this compilation and succeeded.
  bool hasRun(Stage stage) const { return stage <= lastStage && ranAny; }

private:
  bool runStage(Stage stage);
  bool runParse();
  /// Parses the parts into one module.
  bool parseParts();
  bool runSema();
  bool runAutodiff();
  bool runLower();
  bool runOpt();

  CompilerOptions options;
  DiagnosticEngine &diag;
  unsigned mainBuffer = 0;
  std::vector<unsigned> partBuffers; ///< one per CompilerOptions::parts
  Stage lastStage = Stage::Lex;
  bool ranAny = false;
  std::unique_ptr<Module> module;
  std::unique_ptr<ssa::Program> program;
  std::unique_ptr<autodiff::Differentiator> differentiator;
  std::optional<graph::Graph> graphIR;
};

} // namespace dlm

#endif // DLM_COMPILER_DRIVER_COMPILATION_H
