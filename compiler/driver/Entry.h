//===- compiler/driver/Entry.h - Defs compiled for a host program to call --===//
//
// What the embedding API (include/dlm/dlm.h, docs/embedding.md) asks of the compiler, so that
// it needs nothing below the driver:
//   1. LoadedProgram::load reads a program — a file, or source texts each with a name and a
//      first line — and checks all of it once, as dlmc does (parse and sema; its diagnostics in
//      the command line's words), and lists the main file's defs and their signatures.
//   2. LoadedProgram::compile specialises one def (or grad/value_and_grad of it) at a host's
//      argument types and compiles it as an *entry graph*: lowering binds each leaf of its
//      parameters to an `arg` node and each leaf of its result to a `retval` node; the graph is
//      optimised and compiled by the JIT or converted for the graph executor. The program's
//      top-level statements are not part of it: a host calls defs and never runs the script.
//      The call is a wrapper def appended to the program as one more part (`<call>`), so that
//      sema checks the call (arity, annotations, grad's argnums) with its usual messages.
//   3. EntryPoint::call runs the compiled code on flattened arguments (tuples flattened, scalars
//      as 0-d tensors), from any number of threads at once.
//
// Which dims stay symbolic: those the def's annotations name (`x: Tensor[B, 784]`), so another
// batch size runs the same code; every other dim of a host argument is static
// (LoadedProgram::paramTypes).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_DRIVER_ENTRY_H
#define DLM_COMPILER_DRIVER_ENTRY_H

#include "compiler/ir/Type.h"
#include "runtime/CApi.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace dlm {

namespace codegen {
class JitSession;
} // namespace codegen
namespace graph {
class Graph;
} // namespace graph
class DiagnosticEngine;
struct SourcePart;
struct CompilerOptions;

/// One source text of a program given in memory.
struct SourceText {
  std::string name; ///< what positions in it are reported under; imports are relative to it
  std::string text;
  unsigned firstLine = 1; ///< the line number of the text's first line
  /// The column its top-level statements start at, 0-based (CompilerOptions's SourcePart::indent):
  /// a def cut out of an indented block of another file, positions counted as in that file.
  unsigned indent = 0;
};

/// Names a program's code reads as constants (SemaOptions::constants, the same type).
using ProgramConstants = std::map<std::string, std::variant<int64_t, double, bool>>;

/// A parameter of a def as written.
struct ParamInfo {
  std::string name;
  std::string annotation;   ///< its source text, "" when unannotated
  std::string defaultValue; ///< its source text, "" when it has none
  /// The type the annotation fixes (Sema.h annotatedType: a Tensor without dtype is f32), if
  /// it fixes one.
  std::optional<Type> annotatedType;
  /// The symbolic dims the annotation names, in the shape of the argument: for a Tensor
  /// annotation with dims, one name per dim ("" for a size); for a tuple, one entry per
  /// element. Empty for anything else.
  struct Symbols {
    bool tensor = false;
    std::vector<std::string> dims;
    std::vector<Symbols> elements;
  } symbols;
};

/// A def of the main file.
struct DefInfo {
  std::string name;
  std::vector<ParamInfo> params;
  std::string returnAnnotation; ///< source text, "" when unannotated
  /// "predict(w, b, x: Tensor[B, 784]) -> Tensor" as written.
  std::string signature;
  std::string file;
  unsigned line = 0, column = 0; ///< of the def's `def`
  /// Parameters without a default value.
  size_t numRequired() const;
};

/// What a host calls: a def, or its gradient.
struct EntrySpec {
  enum class Kind : uint8_t { Call, Grad, ValueAndGrad };
  std::string def;
  Kind kind = Kind::Call;
  /// grad's argnums; empty: the default (0).
  std::vector<int64_t> argnums;
  bool argnumsIsTuple = false; ///< `argnums=(0,)` rather than `argnums=0`
  /// How the call is written in .dlm: `predict`, `grad(loss, argnums=(0, 1))`.
  std::string callee() const;
};

/// How entries are compiled and run.
struct EntryOptions {
  enum class Engine : uint8_t { JIT, Graph };
  Engine engine = Engine::JIT;
  unsigned optLevel = 2;
  /// The JIT's on-disk object cache (docs/codegen.md; DLM_CACHE_DIR).
  bool objectCache = true;
  /// The graph executor's threads (0: one per core, DLM_NUM_THREADS).
  int numThreads = 0;
};

/// A def compiled at one list of parameter types.
class EntryPoint {
public:
  virtual ~EntryPoint();
  /// Runs on `args` (one borrowed tensor per leaf of the parameters, in order; a scalar as a
  /// 0-d tensor of its graph dtype: int i64, float f64, bool bool) and stores a new reference
  /// per leaf of the result in `results` (numResults entries, null on entry). On a run-time
  /// error returns false with `error` set to its diagnostic text (as `dlm run` prints it) and
  /// nothing left in `results`. Thread-safe.
  virtual bool call(dlm_tensor *const *args, dlm_tensor **results, std::string &error) const = 0;

  std::vector<Type> params; ///< the types it was compiled at (symbolic dims named), strs left out
  Type result = Type::none();
  size_t numArgs = 0;    ///< leaves of params
  size_t numResults = 0; ///< leaves of result
};

/// How LoadedProgram::emitLibraryObject writes one export of an AOT library.
struct LibraryObjectOptions {
  unsigned optLevel = 2;
  std::string aotCpu = "generic"; ///< as for `dlmc -o`: any x86-64, or "native"
  std::string symbolPrefix;       ///< the object defines <prefix>_main and <prefix>_init
  std::string objectPath;
};

/// A program a host loaded: its sources, checked, and its defs.
class LoadedProgram {
public:
  ~LoadedProgram();
  /// Reads the file at `path` and checks the program. Null on failure, with the diagnostics
  /// (every error, as dlmc prints them, "N errors generated" last) in `diagnostics`.
  /// `constants` are names its code reads as constants (SemaOptions::constants).
  static std::unique_ptr<LoadedProgram> loadFile(const std::string &path, std::string &diagnostics,
                                                 ProgramConstants constants = {});
  /// The same for a program given as texts (parts of one main file, in order).
  static std::unique_ptr<LoadedProgram> loadSources(std::vector<SourceText> sources,
                                                    std::string &diagnostics,
                                                    ProgramConstants constants = {});

  /// The main file's defs, in source order.
  const std::vector<DefInfo> &defs() const { return defInfos; }
  const DefInfo *findDef(llvm::StringRef name) const;

  /// The parameter types an entry of `def` is compiled at for arguments of the host types
  /// `args` (static shapes): each dim the parameter's annotation names becomes that symbol.
  static std::vector<Type> paramTypes(const DefInfo &def, const std::vector<Type> &args);

  /// Compiles `spec` at parameter types `params`. A `str` parameter is no argument of the
  /// compiled code: its value, the next of `strings`, is written into the call as a literal
  /// (each string its own code, as for a str constant). Null on failure, with the diagnostics
  /// text in `diagnostics`. Thread-safe (compiles one at a time).
  std::unique_ptr<EntryPoint> compile(const EntrySpec &spec, const std::vector<Type> &params,
                                      const std::vector<std::string> &strings,
                                      const EntryOptions &options, std::string &diagnostics);

  /// Compiles `spec` at `params` (no `str` among them) ahead of time into the object file of one
  /// export of an AOT library (codegen::emitEntryObject). Returns the result type, or nullopt
  /// with the diagnostics text in `diagnostics`.
  std::optional<Type> emitLibraryObject(const EntrySpec &spec, const std::vector<Type> &params,
                                        const LibraryObjectOptions &options,
                                        std::string &diagnostics);

private:
  LoadedProgram() = default;
  /// An entry graph lowered for a use: the graph, its run-time parameter types (strs left out)
  /// and result type, the diagnostics engine and stream of the compile, the program's parts.
  struct LoweredEntry {
    graph::Graph &graph;
    const std::vector<Type> &params;
    const Type &result;
    DiagnosticEngine &diag;
    llvm::raw_ostream &os;
    const std::vector<SourcePart> &parts;
  };
  using LowerCallback = std::function<bool(const LoweredEntry &)>;
  /// Lowers `spec` at `params` into an entry graph (the call a wrapper def `<call>` appended to
  /// the program) and hands it to `use`, on the compiler's large-stack thread, under the
  /// compile lock. False with the diagnostics text in `diagnostics` when it or `use` fails.
  bool lowerEntry(const EntrySpec &spec, const std::vector<Type> &params,
                  const std::vector<std::string> &strings, unsigned optLevel,
                  std::string &diagnostics, const LowerCallback &use);
  static std::unique_ptr<LoadedProgram> load(std::vector<SourceText> sources,
                                             ProgramConstants constants, std::string &diagnostics);
  CompilerOptions compilerOptions() const;

  std::vector<SourceText> sources;
  ProgramConstants constants;
  std::vector<DefInfo> defInfos;
  std::mutex compileLock;
  std::shared_ptr<codegen::JitSession> jit; ///< made by the first JIT compile
};

} // namespace dlm

#endif // DLM_COMPILER_DRIVER_ENTRY_H
