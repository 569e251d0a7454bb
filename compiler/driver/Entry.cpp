//===- compiler/driver/Entry.cpp - Defs compiled for a host program to call ===//
#include "compiler/driver/Entry.h"

#include "compiler/codegen/Codegen.h"
#include "compiler/driver/Compilation.h"
#include "compiler/driver/Driver.h"
#include "compiler/engine/Engine.h"
#include "runtime/Tensor.h"

#include "llvm/Support/Threading.h"
#include "llvm/Support/thread.h"

#include <exception>
#include <tuple>

namespace dlm {

namespace {

/// The wrapper def a call becomes (appended to the program as the part `<call>`).
constexpr const char *kEntryDef = "__dlm_entry";
constexpr const char *kCallPart = "<call>";

/// Runs `body` on a thread with the compiler's large stack (the recursive walkers of every
/// stage need it for deeply nested programs; a host's thread may have a small one). What the
/// ANTLR runtime throws is reported to `diag` as an internal error. No crash recovery: a library
/// does not install signal handlers.
bool runOnLargeStack(const std::function<bool()> &body, DiagnosticEngine &diag) {
  bool ok = false;
  std::string exceptionText;
  llvm::thread worker(std::optional<unsigned>(kCompilerStackBytes), [&] {
    try {
      ok = body();
    } catch (const std::exception &e) {
      exceptionText = e.what();
    } catch (...) {
      exceptionText = "unknown exception";
    }
  });
  worker.join();
  if (!exceptionText.empty())
    return diag.error("internal compiler error: uncaught exception: " + exceptionText);
  return ok;
}

/// A diagnostics engine writing what the command line would print into a string.
struct TextDiagnostics {
  std::string text;
  llvm::raw_string_ostream os{text};
  DiagnosticEngine diag{os, "dlm"};
  TextDiagnostics() {
    diag.setColorMode(ColorMode::Never);
    diag.setErrorLimit(kErrorLimit);
  }
  /// The diagnostics, "N errors generated" last.
  std::string finish() {
    diag.printSummary();
    os.flush();
    return text;
  }
};

/// A source text as one part of the program: its first line moved to `firstLine` by empty lines
/// in front, so positions count as in the file it came from.
SourcePart partOf(const SourceText &source) {
  unsigned pad = source.firstLine > 1 ? source.firstLine - 1 : 0;
  return SourcePart{source.name, std::string(pad, '\n') + source.text, "", source.indent};
}

std::string textOf(llvm::SMRange range) {
  if (!range.Start.isValid() || !range.End.isValid())
    return "";
  const char *begin = range.Start.getPointer();
  return llvm::StringRef(begin, range.End.getPointer() - begin).trim().str();
}

ParamInfo::Symbols symbolsOf(const TypeExpr *annotation) {
  ParamInfo::Symbols symbols;
  if (auto *tensor = llvm::dyn_cast_or_null<TensorTypeExpr>(annotation)) {
    if (!tensor->hasShape())
      return symbols;
    symbols.tensor = true;
    for (const DimExpr &d : tensor->getDims())
      symbols.dims.push_back(d.isSymbolic() ? d.symbol : "");
  } else if (auto *tuple = llvm::dyn_cast_or_null<TupleTypeExpr>(annotation)) {
    for (const TypeExpr *element : tuple->getElements())
      symbols.elements.push_back(symbolsOf(element));
  }
  return symbols;
}

DefInfo describeDef(const FunctionDefStmt &def, DiagnosticEngine &diag) {
  DefInfo info;
  info.name = def.getName().str();
  info.signature = info.name + "(";
  for (const Param *p : def.getParams()) {
    ParamInfo param;
    param.name = p->getName().str();
    if (const TypeExpr *annotation = p->getAnnotation()) {
      param.annotation = textOf(annotation->getRange());
      param.annotatedType = annotatedType(annotation);
      param.symbols = symbolsOf(annotation);
    }
    if (const Expr *value = p->getDefault())
      param.defaultValue = textOf(value->getRange());
    info.signature += (info.params.empty() ? "" : ", ") + param.name;
    if (!param.annotation.empty())
      info.signature += ": " + param.annotation;
    if (!param.defaultValue.empty())
      info.signature += " = " + param.defaultValue;
    info.params.push_back(std::move(param));
  }
  info.signature += ")";
  if (const TypeExpr *ret = def.getReturnAnnotation()) {
    info.returnAnnotation = textOf(ret->getRange());
    info.signature += " -> " + info.returnAnnotation;
  }
  info.file = diag.getBufferName(def.getBeginLoc()).str();
  std::tie(info.line, info.column) = diag.getLineAndColumn(def.getBeginLoc());
  return info;
}

Type withSymbols(const ParamInfo::Symbols &symbols, const Type &t) {
  if (symbols.tensor && t.isTensor() && t.rank() == symbols.dims.size()) {
    Shape shape = t.shape();
    for (size_t i = 0; i < shape.size(); ++i)
      if (!symbols.dims[i].empty())
        shape[i] = Dim::symbol(symbols.dims[i]);
    return Type::tensor(t.dtype(), shape);
  }
  if (t.isTuple() && symbols.elements.size() == t.elements().size()) {
    std::vector<Type> elements;
    for (size_t i = 0; i < symbols.elements.size(); ++i)
      elements.push_back(withSymbols(symbols.elements[i], t.elements()[i]));
    return Type::tuple(elements);
  }
  return t;
}

/// `s` as a .dlm string literal.
std::string quote(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c == 0x7f) {
      const char *hex = "0123456789abcdef";
      out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

/// `def __dlm_entry(P...):\n    return CALLEE(A...)\n`: a parameter per argument but a str,
/// whose literal is the argument instead. Parameters are named after the def's where the name
/// cannot shadow what the call itself names.
std::string wrapperText(const EntrySpec &spec, const DefInfo &def, const std::vector<Type> &params,
                        const std::vector<std::string> &strings) {
  std::string names, args;
  size_t nextString = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    std::string arg;
    if (params[i].kind() == Type::Kind::Str) {
      arg = quote(nextString < strings.size() ? strings[nextString++] : "");
    } else {
      arg = i < def.params.size() ? def.params[i].name : "";
      if (arg.empty() || arg == def.name || arg == "grad" || arg == "value_and_grad")
        arg = "arg" + std::to_string(i);
      names += (names.empty() ? "" : ", ") + arg;
    }
    args += (i ? ", " : "") + arg;
  }
  return "def " + std::string(kEntryDef) + "(" + names + "):\n    return " + spec.callee() + "(" +
         args + ")\n";
}

size_t leafCount(const Type &t) { return graph::graphTypes(t).size(); }

/// An entry compiled by the JIT: its functions live as long as the session.
class JitEntry : public EntryPoint {
public:
  JitEntry(std::shared_ptr<codegen::JitSession> session, codegen::EntryFunctions functions)
      : session(std::move(session)), functions(functions) {}
  ~JitEntry() override {
    if (initialised)
      functions.fini();
  }

  /// Runs @dlm_init (kernel ids, attributes, constants); false with the error text.
  bool init(std::string &error) {
    dlm_clear_error();
    if (functions.init() != 0) {
      error = dlm_last_error_report();
      functions.fini();
      return false;
    }
    initialised = true;
    return true;
  }

  bool call(dlm_tensor *const *args, dlm_tensor **results, std::string &error) const override {
    if (functions.main(args, results) == 0)
      return true;
    error = dlm_last_error_report();
    for (size_t i = 0; i < numResults; ++i) {
      dlm_tensor_release(results[i]);
      results[i] = nullptr;
    }
    return false;
  }

private:
  std::shared_ptr<codegen::JitSession> session;
  codegen::EntryFunctions functions;
  bool initialised = false;
};

/// An entry run by the graph executor. Errors are reported against the program's sources.
class GraphEntry : public EntryPoint {
public:
  GraphEntry(graph::Graph g, std::vector<SourcePart> parts, int numThreads)
      : g(std::move(g)), parts(std::move(parts)) {
    options.numThreads = numThreads;
  }
  rt::Status build() { return exec.build(g); }

  bool call(dlm_tensor *const *args, dlm_tensor **results, std::string &error) const override {
    std::vector<rt::Value> feeds;
    feeds.reserve(numArgs);
    for (size_t i = 0; i < numArgs; ++i)
      feeds.emplace_back(rt::Tensor::share(reinterpret_cast<rt::TensorImpl *>(args[i])));
    rt::RunResult run = exec.run(std::move(feeds), options);
    if (run.ok()) {
      for (size_t i = 0; i < numResults; ++i) {
        rt::Tensor t = run.fetched[i].tensor();
        results[i] = reinterpret_cast<dlm_tensor *>(t.release());
      }
      return true;
    }
    TextDiagnostics text;
    for (const SourcePart &part : parts)
      text.diag.addBuffer(part.text, part.name);
    engine::reportRunError(g, run, text.diag);
    text.os.flush();
    error = text.text;
    return false;
  }

private:
  graph::Graph g;
  std::vector<SourcePart> parts;
  engine::EntryGraph exec;
  engine::EngineOptions options;
};

} // namespace

EntryPoint::~EntryPoint() = default;

size_t DefInfo::numRequired() const {
  size_t n = 0;
  for (const ParamInfo &p : params)
    n += p.defaultValue.empty();
  return n;
}

std::string EntrySpec::callee() const {
  if (kind == Kind::Call)
    return def;
  std::string text = kind == Kind::Grad ? "grad(" : "value_and_grad(";
  text += def;
  if (!argnums.empty()) {
    text += ", argnums=";
    bool tuple = argnumsIsTuple || argnums.size() > 1;
    text += tuple ? "(" : "";
    for (size_t i = 0; i < argnums.size(); ++i)
      text += (i ? ", " : "") + std::to_string(argnums[i]);
    text += tuple ? (argnums.size() == 1 ? ",)" : ")") : "";
  }
  return text + ")";
}

LoadedProgram::~LoadedProgram() = default;

std::unique_ptr<LoadedProgram> LoadedProgram::loadFile(const std::string &path,
                                                       std::string &diagnostics,
                                                       ProgramConstants constants) {
  TextDiagnostics text;
  std::optional<unsigned> buffer = text.diag.addFile(path);
  if (!buffer) {
    diagnostics = text.finish();
    return nullptr;
  }
  std::string contents = text.diag.getSourceMgr().getMemoryBuffer(*buffer)->getBuffer().str();
  return load({SourceText{path, std::move(contents), 1}}, std::move(constants), diagnostics);
}

std::unique_ptr<LoadedProgram> LoadedProgram::loadSources(std::vector<SourceText> sources,
                                                          std::string &diagnostics,
                                                          ProgramConstants constants) {
  if (sources.empty()) {
    diagnostics = "dlm: error: no source text given\n";
    return nullptr;
  }
  return load(std::move(sources), std::move(constants), diagnostics);
}

CompilerOptions LoadedProgram::compilerOptions() const {
  CompilerOptions options;
  for (const SourceText &source : sources)
    options.parts.push_back(partOf(source));
  options.constants = constants;
  return options;
}

std::unique_ptr<LoadedProgram> LoadedProgram::load(std::vector<SourceText> sources,
                                                   ProgramConstants constants,
                                                   std::string &diagnostics) {
  std::unique_ptr<LoadedProgram> program(new LoadedProgram());
  program->sources = std::move(sources);
  program->constants = std::move(constants);
  TextDiagnostics text;
  bool ok = runOnLargeStack(
      [&] {
        CompilerOptions options = program->compilerOptions();
        options.emit = EmitKind::SSA; // parse and check, as dlmc does; nothing runs
        Compilation compilation(options, text.diag);
        if (!compilation.loadInput() || !compilation.run(llvm::nulls()))
          return false;
        for (const FunctionDefStmt *def : compilation.getModule()->getFunctions())
          program->defInfos.push_back(describeDef(*def, text.diag));
        return true;
      },
      text.diag);
  diagnostics = text.finish();
  if (!ok)
    return nullptr;
  return program;
}

const DefInfo *LoadedProgram::findDef(llvm::StringRef name) const {
  for (const DefInfo &def : defInfos)
    if (def.name == name)
      return &def;
  return nullptr;
}

std::vector<Type> LoadedProgram::paramTypes(const DefInfo &def, const std::vector<Type> &args) {
  std::vector<Type> params;
  for (size_t i = 0; i < args.size(); ++i)
    params.push_back(i < def.params.size() ? withSymbols(def.params[i].symbols, args[i]) : args[i]);
  return params;
}

bool LoadedProgram::lowerEntry(const EntrySpec &spec, const std::vector<Type> &params,
                               const std::vector<std::string> &strings, unsigned optLevel,
                               std::string &diagnostics, const LowerCallback &use) {
  const DefInfo *def = findDef(spec.def);
  if (!def) {
    diagnostics = "dlm: error: no def named '" + spec.def + "'\n";
    return false;
  }
  std::lock_guard<std::mutex> lock(compileLock);
  CompilerOptions compilerOptions = this->compilerOptions();
  compilerOptions.parts.push_back(
      SourcePart{kCallPart, wrapperText(spec, *def, params, strings), ""});
  std::vector<Type> runTimeParams;
  for (const Type &t : params)
    if (t.kind() != Type::Kind::Str)
      runTimeParams.push_back(t);
  compilerOptions.entry = SemaOptions::Entry{kEntryDef, runTimeParams};
  compilerOptions.optLevel = optLevel;
  TextDiagnostics text;
  bool ok = runOnLargeStack(
      [&] {
        Compilation compilation(compilerOptions, text.diag);
        if (!compilation.loadInput() || !compilation.run(llvm::nulls()))
          return false;
        const ssa::Function *function = compilation.getProgram()->entry;
        return use(LoweredEntry{*compilation.getGraph(), runTimeParams, function->resultType,
                                text.diag, text.os, compilerOptions.parts});
      },
      text.diag);
  diagnostics = text.finish();
  return ok;
}

std::unique_ptr<EntryPoint> LoadedProgram::compile(const EntrySpec &spec,
                                                   const std::vector<Type> &params,
                                                   const std::vector<std::string> &strings,
                                                   const EntryOptions &options,
                                                   std::string &diagnostics) {
  std::unique_ptr<EntryPoint> entry;
  auto make = [&](const LoweredEntry &lowered) {
    if (options.engine == EntryOptions::Engine::Graph) {
      auto graphEntry =
          std::make_unique<GraphEntry>(std::move(lowered.graph), lowered.parts, options.numThreads);
      if (rt::Status s = graphEntry->build(); !s)
        return lowered.diag.error("internal error: the graph executor cannot run this graph: " +
                                  s.message());
      entry = std::move(graphEntry);
    } else {
      if (!jit)
        jit = std::make_shared<codegen::JitSession>();
      codegen::CodegenOptions codegenOptions;
      codegenOptions.optLevel = options.optLevel;
      codegenOptions.objectCache = options.objectCache;
      std::optional<codegen::EntryFunctions> functions =
          jit->compileEntry(lowered.graph, lowered.diag, codegenOptions);
      if (!functions)
        return false;
      auto jitEntry = std::make_unique<JitEntry>(jit, *functions);
      std::string error;
      if (!jitEntry->init(error)) {
        lowered.os << error;
        return false;
      }
      entry = std::move(jitEntry);
    }
    entry->params = lowered.params;
    entry->result = lowered.result;
    for (const Type &t : lowered.params)
      entry->numArgs += leafCount(t);
    entry->numResults = leafCount(lowered.result);
    return true;
  };
  if (!lowerEntry(spec, params, strings, options.optLevel, diagnostics, make))
    return nullptr;
  return entry;
}

std::optional<Type> LoadedProgram::emitLibraryObject(const EntrySpec &spec,
                                                     const std::vector<Type> &params,
                                                     const LibraryObjectOptions &options,
                                                     std::string &diagnostics) {
  std::optional<Type> resultType;
  auto emit = [&](const LoweredEntry &lowered) {
    codegen::CodegenOptions codegenOptions;
    codegenOptions.optLevel = options.optLevel;
    codegenOptions.aotCpu = options.aotCpu;
    codegenOptions.entry = true;
    if (codegen::emitEntryObject(lowered.graph, lowered.diag, codegenOptions, options.symbolPrefix,
                                 options.objectPath) != codegen::kExitOk)
      return false;
    resultType = lowered.result;
    return true;
  };
  if (!lowerEntry(spec, params, {}, options.optLevel, diagnostics, emit))
    return std::nullopt;
  return resultType;
}

} // namespace dlm
