//===- compiler/driver/Library.cpp - dlmc --emit=lib: AOT libraries --------===//
//
// 1. The library's NAME from the output path, the exports from --export (every def without it).
// 2. Each export's parameter types come from its def's annotations, which must fix every
//    parameter (a symbolic dim `B` becomes a size argument of the C function); its result's
//    dims must be sizes or those symbols, so that the caller can allocate the result arrays.
// 3. Each export compiles into an object file (LoadedProgram::emitLibraryObject); the typed C
//    functions are generated as C source (compiled by codegen::buildLibrary with the library)
//    and declared in NAME.h, written beside the library.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Library.h"

#include "compiler/codegen/Codegen.h"
#include "compiler/driver/Driver.h"
#include "compiler/driver/Entry.h"
#include "compiler/driver/Options.h"
#include "compiler/ir/Graph.h"
#include "runtime/AotLibrary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

namespace dlm {

namespace {

constexpr const char *kTool = "dlmc";

/// One export: the C function `<lib>_<cname>` for `spec`.
struct Export {
  std::string text; ///< as written in --export
  std::string cname;
  EntrySpec spec;
};

/// One argument or result of a C function: a leaf of the def's parameters or result.
struct Leaf {
  std::string name;
  Type type;            ///< a tensor type (a scalar as a 0-d tensor of its graph dtype)
  bool byValue = false; ///< an int, float or bool argument, passed by value
  std::string scalar;   ///< its language type then: "int", "float", "bool"
};

/// What the C side of one export needs.
struct ExportSignature {
  std::string signature; ///< "def(...)" as written, for the header's comment
  std::vector<std::string> sizes;
  std::vector<Leaf> inputs, outputs;
};

bool isIdentifier(llvm::StringRef s) {
  if (s.empty() || !(llvm::isAlpha(s[0]) || s[0] == '_'))
    return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Splits `s` at the commas outside parentheses.
std::vector<llvm::StringRef> splitTopLevel(llvm::StringRef s) {
  std::vector<llvm::StringRef> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || (s[i] == ',' && depth == 0)) {
      parts.push_back(s.slice(start, i).trim());
      start = i + 1;
    } else if (s[i] == '(') {
      ++depth;
    } else if (s[i] == ')') {
      --depth;
    }
  }
  return parts;
}

/// Parses grad's `argnums=` value: `N`, `(N,)` or `(N, M, ...)`.
bool parseArgnums(llvm::StringRef value, EntrySpec &spec) {
  bool tuple = value.consume_front("(");
  if (tuple && !value.consume_back(")"))
    return false;
  for (llvm::StringRef n : llvm::split(value, ',')) {
    n = n.trim();
    if (n.empty() && tuple && !spec.argnums.empty())
      continue; // `(0,)`
    int64_t k;
    if (n.getAsInteger(10, k) || k < 0)
      return false;
    spec.argnums.push_back(k);
  }
  spec.argnumsIsTuple = tuple;
  return !spec.argnums.empty() && (tuple || spec.argnums.size() == 1);
}

/// Parses one item of --export; an error message, or "" with `out` set.
std::string parseExport(llvm::StringRef text, Export &out) {
  out.text = text.str();
  llvm::StringRef rest = text;
  size_t eq = text.find('='), paren = text.find('(');
  if (eq != llvm::StringRef::npos && eq < paren) {
    out.cname = text.take_front(eq).trim().str();
    rest = text.drop_front(eq + 1).trim();
    if (!isIdentifier(out.cname))
      return "'" + out.cname + "' is not a C identifier";
  }
  for (auto [prefix, kind] : {std::pair{"grad(", EntrySpec::Kind::Grad},
                              std::pair{"value_and_grad(", EntrySpec::Kind::ValueAndGrad}}) {
    llvm::StringRef inner = rest;
    if (!inner.consume_front(prefix))
      continue;
    if (!inner.consume_back(")"))
      return "expected ')' at the end";
    std::vector<llvm::StringRef> args = splitTopLevel(inner);
    out.spec.kind = kind;
    out.spec.def = args[0].str();
    if (args.size() > 2)
      return "expected grad(DEF) or grad(DEF, argnums=...)";
    llvm::StringRef argnums = args.size() == 2 ? args[1] : "";
    bool named = argnums.consume_front("argnums");
    argnums = argnums.ltrim();
    if (args.size() == 2 &&
        (!named || !argnums.consume_front("=") || !parseArgnums(argnums.trim(), out.spec)))
      return "expected 'argnums=N' or 'argnums=(N, ...)' after the def";
    break;
  }
  if (out.spec.def.empty())
    out.spec.def = rest.str();
  if (!isIdentifier(out.spec.def))
    return "expected a def's name, grad(DEF, ...) or value_and_grad(DEF, ...)";
  if (out.cname.empty()) {
    out.cname = out.spec.kind == EntrySpec::Kind::Call   ? ""
                : out.spec.kind == EntrySpec::Kind::Grad ? "grad_"
                                                         : "value_and_grad_";
    out.cname += out.spec.def;
    for (int64_t k : out.spec.argnums)
      out.cname += "_" + std::to_string(k);
  }
  return "";
}

/// The C type of an element of `dtype`.
const char *cType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "float";
  case DType::F64:
    return "double";
  case DType::I32:
    return "int32_t";
  case DType::I64:
    return "int64_t";
  case DType::Bool:
    return "bool";
  }
  return "void";
}

/// The leaves of a value of type `t` called `name` (tuple elements `name_0`, `name_1`, ...).
void collectLeaves(const Type &t, const std::string &name, std::vector<Leaf> &leaves) {
  if (t.isTuple()) {
    for (size_t i = 0; i < t.elements().size(); ++i)
      collectLeaves(t.elements()[i], name + "_" + std::to_string(i), leaves);
    return;
  }
  for (const Type &g : graph::graphTypes(t))
    leaves.push_back(Leaf{name, g, !t.isTensor(), t.isTensor() ? "" : t.str()});
}

/// `name`, or with '_' appended until no name of `used` (nor a C keyword dlm allows) has it.
std::string uniqueName(std::string name, std::set<std::string> &used) {
  static const std::set<std::string> keywords = {
      "auto",     "break",  "case",     "char",     "const",    "continue", "default",
      "do",       "double", "else",     "enum",     "extern",   "for",      "goto",
      "if",       "inline", "long",     "register", "restrict", "return",   "short",
      "signed",   "sizeof", "static",   "struct",   "switch",   "typedef",  "union",
      "unsigned", "void",   "volatile", "while",    "sizes",    "inputs",   "outputs"};
  while (keywords.count(name) || used.count(name))
    name += "_";
  used.insert(name);
  return name;
}

std::string typeText(const Leaf &leaf) {
  std::string text = std::string(dtypeName(leaf.type.dtype())) + "[";
  for (size_t i = 0; i < leaf.type.rank(); ++i)
    text += (i ? ", " : "") + leaf.type.shape()[i].str();
  return text + "]";
}

/// The runtime's form of a leaf: "name:f32[B,4]" (runtime/AotLibrary.h).
std::string runtimeLeaf(const Leaf &leaf) {
  std::string text = typeText(leaf);
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  return leaf.name + ":" + text;
}

/// The C side of an export of `def` compiled at `params` with result type `result`; an error
/// message when the caller could not size a result array.
std::string describeExport(const DefInfo &def, const std::vector<Type> &params, const Type &result,
                           ExportSignature &out) {
  out.signature = def.signature;
  std::set<std::string> used;
  for (size_t i = 0; i < params.size(); ++i)
    collectLeaves(params[i], def.params[i].name, out.inputs);
  for (const Leaf &leaf : out.inputs)
    for (const Dim &d : leaf.type.shape())
      if (d.isSymbolic() && llvm::find(out.sizes, d.name()) == out.sizes.end())
        out.sizes.push_back(d.name());
  for (std::string &size : out.sizes)
    size = uniqueName(size, used);
  for (Leaf &leaf : out.inputs)
    leaf.name = uniqueName(leaf.name, used);
  collectLeaves(result, "out", out.outputs);
  for (Leaf &leaf : out.outputs) {
    for (const Dim &d : leaf.type.shape())
      if (d.isSymbolic() && llvm::find(out.sizes, d.name()) == out.sizes.end())
        return "its result '" + leaf.name + "' is " + typeText(leaf) + ", and no argument fixes '" +
               d.name() + "' (the caller could not size the array)";
    leaf.name = uniqueName(leaf.name, used);
  }
  return "";
}

/// The parameter types of an export of `def`: those its annotations fix; an error message when
/// one does not fix its parameter's type or is a str.
std::string exportParams(const DefInfo &def, std::vector<Type> &params) {
  for (const ParamInfo &p : def.params) {
    if (!p.annotatedType)
      return "parameter '" + p.name + "' " +
             (p.annotation.empty() ? "has no annotation"
                                   : "has the annotation '" + p.annotation + "', which") +
             (p.annotation.empty() ? "" : " does not fix its shape") +
             "; a library function needs each parameter's type: annotate it, for instance '" +
             p.name + ": Tensor[f32, B, 4]' (a symbolic dim like B becomes a size argument), " +
             "'int' or '(Tensor[4, 8], Tensor[8])'";
    if (p.annotatedType->kind() == Type::Kind::Str)
      return "parameter '" + p.name + "' is a str, which a library function cannot take";
    params.push_back(*p.annotatedType);
  }
  return "";
}

/// The C prototype of an export: `int NAME_CNAME(int64_t B, const float *x, float *out)`.
std::string prototype(const std::string &function, const ExportSignature &sig) {
  std::vector<std::string> params;
  for (const std::string &size : sig.sizes)
    params.push_back("int64_t " + size);
  for (const Leaf &leaf : sig.inputs)
    params.push_back(leaf.byValue
                         ? std::string(cType(leaf.type.dtype())) + " " + leaf.name
                         : "const " + std::string(cType(leaf.type.dtype())) + " *" + leaf.name);
  for (const Leaf &leaf : sig.outputs)
    params.push_back(std::string(cType(leaf.type.dtype())) + " *" + leaf.name);
  return "int " + function + "(" + (params.empty() ? "void" : llvm::join(params, ", ")) + ")";
}

std::string headerComment(const ExportSignature &sig, const Export &e) {
  std::string text =
      "/* " + (e.spec.kind == EntrySpec::Kind::Call ? sig.signature
                                                    : e.spec.callee() + " of " + sig.signature);
  for (const Leaf &leaf : sig.inputs)
    text += "\n *   " + leaf.name + ": " +
            (leaf.byValue ? leaf.scalar + " (by value)" : typeText(leaf));
  for (const Leaf &leaf : sig.outputs)
    text += "\n *   " + leaf.name + ": " + typeText(leaf) + " (written)";
  return text + "\n */\n";
}

/// NAME.h.
std::string headerText(const std::string &lib, const LibraryOptions &options,
                       const std::vector<Export> &exports,
                       const std::vector<ExportSignature> &sigs) {
  std::string guard = llvm::StringRef(lib).upper() + "_H";
  std::string text =
      "/* " + lib + ".h: generated by dlmc --emit=lib from " +
      llvm::sys::path::filename(options.input).str() + "; do not edit.\n *\n" +
      " * One function per export. Arrays are dense and row-major; each result is written into\n"
      " * an array the caller allocates with the size its comment gives (a NULL result pointer\n"
      " * skips that result). A function returns 0, 1 after a run-time error of the program or\n"
      " * 2 after a bad call (a negative size, a NULL argument); " +
      lib +
      "_last_error() then has\n * the diagnostic text. Every function may be called from "
      "several threads at once.\n"
      " * A static library needs, after it: -lstdc++";
  for (const std::string &arg : codegen::libraryLinkArguments())
    text += " " + arg;
  text += "\n */\n#ifndef " + guard + "\n#define " + guard + "\n\n#include <stdbool.h>\n" +
          "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (size_t i = 0; i < exports.size(); ++i)
    text += headerComment(sigs[i], exports[i]) + prototype(lib + "_" + exports[i].cname, sigs[i]) +
            ";\n\n";
  text += "/* The diagnostic text of the last failed call on this thread (\"\" if none). */\n" +
          std::string("const char *") + lib + "_last_error(void);\n\n" +
          "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " + guard + " */\n";
  return text;
}

/// The C file of the typed functions: each packs its pointers for dlm_lib_call.
std::string wrapperText(const std::string &lib, const std::vector<Export> &exports,
                        const std::vector<ExportSignature> &sigs, bool fma) {
  std::string text =
      "/* Generated by dlmc --emit=lib; the declarations repeat runtime/AotLibrary.h. */\n"
      "#include <stdbool.h>\n#include <stdint.h>\n#include <stddef.h>\n\n"
      "typedef struct dlm_lib_entry {\n  int32_t abi;\n  const char *name;\n"
      "  const char *signature;\n  int32_t (*main)(void *const *, void **);\n"
      "  int32_t (*init)(void);\n  int32_t (*main_fma)(void *const *, void **);\n"
      "  int32_t (*init_fma)(void);\n  void *state;\n} dlm_lib_entry;\n\n"
      "int32_t dlm_lib_call(dlm_lib_entry *, const int64_t *, const void *const *,\n"
      "                     void *const *);\nconst char *dlm_lib_last_error(void);\n\n"
      "#define EXPORT __attribute__((visibility(\"default\")))\n\n";
  for (size_t i = 0; i < exports.size(); ++i) {
    const ExportSignature &sig = sigs[i];
    std::string function = lib + "_" + exports[i].cname,
                entry = lib + "__entry" + std::to_string(i);
    std::string runtimeSig = llvm::join(sig.sizes, ",") + "|";
    for (size_t k = 0; k < sig.inputs.size(); ++k)
      runtimeSig += (k ? ";" : "") + runtimeLeaf(sig.inputs[k]);
    runtimeSig += "|";
    for (size_t k = 0; k < sig.outputs.size(); ++k)
      runtimeSig += (k ? ";" : "") + runtimeLeaf(sig.outputs[k]);
    for (const char *suffix : {"_main", "_main_fma"})
      if (fma || llvm::StringRef(suffix) == "_main")
        text += "int32_t " + entry + suffix + "(void *const *, void **);\n";
    for (const char *suffix : {"_init", "_init_fma"})
      if (fma || llvm::StringRef(suffix) == "_init")
        text += "int32_t " + entry + suffix + "(void);\n";
    text += "static dlm_lib_entry " + entry + " = {" + std::to_string(DLM_LIB_ABI) + ", \"" +
            function + "\", \"" + runtimeSig + "\", " + entry + "_main, " + entry + "_init, " +
            (fma ? entry + "_main_fma, " + entry + "_init_fma" : std::string("NULL, NULL")) +
            ", NULL};\n\nEXPORT " + prototype(function, sig) + " {\n";
    std::vector<std::string> inputs, outputs;
    for (const Leaf &leaf : sig.inputs)
      inputs.push_back((leaf.byValue ? "&" : "") + leaf.name);
    for (const Leaf &leaf : sig.outputs)
      outputs.push_back(leaf.name);
    auto array = [&](const char *type, const char *name, const std::vector<std::string> &items) {
      if (items.empty())
        return "  " + std::string(type) + " *" + name + " = NULL;\n";
      return "  " + std::string(type) + " " + name + "[] = {" + llvm::join(items, ", ") + "};\n";
    };
    text += array("const int64_t", "sizes", sig.sizes) +
            array("const void *const", "inputs", inputs) +
            array("void *const", "outputs", outputs) + "  return dlm_lib_call(&" + entry +
            ", sizes, inputs, outputs);\n}\n\n";
  }
  text += "EXPORT const char *" + lib + "_last_error(void) { return dlm_lib_last_error(); }\n";
  return text;
}

/// NAME of `libNAME.so` / `libNAME.a` (or `NAME.so`); "" with `error` set otherwise.
std::string libraryName(llvm::StringRef output, std::string &error) {
  llvm::StringRef file = llvm::sys::path::filename(output);
  llvm::StringRef stem = file;
  if (!stem.consume_back(".so") && !stem.consume_back(".a")) {
    error = "--emit=lib writes a shared library (-o libNAME.so) or a static one (-o libNAME.a), "
            "not '" +
            file.str() + "'";
    return "";
  }
  if (file.ends_with(".a") && output.find_first_of(" \t\n+;*") != llvm::StringRef::npos) {
    error = "a static library's path may not hold spaces, '+', ';' or '*' (the archiver's "
            "script cannot name it): '" +
            output.str() + "'";
    return "";
  }
  stem.consume_front("lib");
  if (!isIdentifier(stem)) {
    error = "the library's name '" + stem.str() + "' (from '" + file.str() +
            "') must be a C identifier: its functions are named NAME_def";
    return "";
  }
  return stem.str();
}

bool writeFile(const std::string &path, const std::string &text) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (!ec) {
    out << text;
    out.close();
    if (!out.has_error())
      return true;
    ec = out.error();
    out.clear_error();
  }
  llvm::errs() << kTool << ": error: cannot write '" << path << "': " << ec.message() << "\n";
  return false;
}

/// The exports --export names (every def when it is empty); exit status 2 after an error.
std::optional<std::vector<Export>> parseExports(const LibraryOptions &options,
                                                const LoadedProgram &program) {
  std::vector<Export> exports;
  if (options.exports.empty()) {
    for (const DefInfo &def : program.defs()) {
      Export e;
      e.text = e.cname = e.spec.def = def.name;
      exports.push_back(std::move(e));
    }
  } else {
    for (llvm::StringRef item : splitTopLevel(options.exports)) {
      Export e;
      if (std::string error = parseExport(item, e); !error.empty()) {
        usageError(kTool, "bad --export '" + item + "': " + error);
        return std::nullopt;
      }
      exports.push_back(std::move(e));
    }
  }
  std::set<std::string> names;
  for (const Export &e : exports) {
    if (!program.findDef(e.spec.def)) {
      std::string defs;
      for (const DefInfo &def : program.defs())
        defs += (defs.empty() ? "" : ", ") + def.name;
      usageError(kTool, "bad --export '" + e.text + "': " + options.input + " has no def named '" +
                            e.spec.def + "' (its defs: " + (defs.empty() ? "none" : defs) + ")");
      return std::nullopt;
    }
    if (!names.insert(e.cname).second) {
      usageError(kTool, "two exports are named '" + e.cname + "'; name one with NAME=" + e.text);
      return std::nullopt;
    }
  }
  if (exports.empty()) {
    usageError(kTool, options.input + " has no def to export");
    return std::nullopt;
  }
  return exports;
}

/// Compiles every export into an object file in `dir`; fills `objects` and `sigs`.
int compileExports(LoadedProgram &program, const LibraryOptions &options, const std::string &lib,
                   const std::vector<Export> &exports, llvm::StringRef dir,
                   std::vector<std::string> &objects, std::vector<ExportSignature> &sigs) {
  for (size_t i = 0; i < exports.size(); ++i) {
    const Export &e = exports[i];
    const DefInfo &def = *program.findDef(e.spec.def);
    auto cannot = [&](const std::string &why) {
      llvm::errs() << def.file << ":" << def.line << ":" << def.column << ": error: cannot export '"
                   << e.text << "': " << why << "\n";
      return ExitUserError;
    };
    std::vector<Type> params;
    if (std::string why = exportParams(def, params); !why.empty())
      return cannot(why);
    LibraryObjectOptions objectOptions;
    objectOptions.optLevel = options.optLevel;
    objectOptions.aotCpu = options.aotCpu;
    objectOptions.symbolPrefix = lib + "__entry" + std::to_string(i);
    llvm::SmallString<128> object(dir);
    llvm::sys::path::append(object, lib + "_" + e.cname + ".o");
    objectOptions.objectPath = object.str().str();
    std::string diagnostics;
    std::optional<Type> result =
        program.emitLibraryObject(e.spec, params, objectOptions, diagnostics);
    llvm::errs() << diagnostics;
    if (!result)
      return llvm::StringRef(diagnostics).contains("internal error") ? ExitInternal : ExitUserError;
    ExportSignature sig;
    if (std::string why = describeExport(def, params, *result, sig); !why.empty())
      return cannot(why);
    sigs.push_back(std::move(sig));
    objects.push_back(objectOptions.objectPath);
  }
  return ExitSuccess;
}

} // namespace

int buildAotLibrary(const LibraryOptions &options, llvm::StringRef toolPath) {
  std::string error;
  std::string lib = libraryName(options.output, error);
  if (lib.empty())
    return usageError(kTool, error);
  std::string diagnostics;
  std::unique_ptr<LoadedProgram> program = LoadedProgram::loadFile(options.input, diagnostics);
  llvm::errs() << diagnostics;
  if (!program)
    return ExitUserError;
  std::optional<std::vector<Export>> exports = parseExports(options, *program);
  if (!exports)
    return ExitUsage;
  llvm::SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("dlm-lib", dir)) {
    llvm::errs() << kTool << ": error: cannot create a temporary folder: " << ec.message() << "\n";
    return ExitUserError;
  }
  std::vector<std::string> objects;
  std::vector<ExportSignature> sigs;
  int status = compileExports(*program, options, lib, *exports, dir, objects, sigs);
  codegen::CodegenOptions codegenOptions;
  codegenOptions.optLevel = options.optLevel;
  codegenOptions.aotCpu = options.aotCpu;
  bool fma = codegen::hasFmaCopies(codegenOptions);
  llvm::SmallString<128> wrapper(dir);
  llvm::sys::path::append(wrapper, lib + "_exports.c");
  if (status == ExitSuccess &&
      !writeFile(wrapper.str().str(), wrapperText(lib, *exports, sigs, fma)))
    status = ExitUserError;
  if (status == ExitSuccess) {
    DiagnosticEngine diag(llvm::errs(), kTool);
    status =
        codegen::buildLibrary(objects, wrapper, diag, codegenOptions, options.output, toolPath);
  }
  llvm::sys::fs::remove_directories(dir);
  if (status != ExitSuccess)
    return status;
  llvm::SmallString<128> header(llvm::sys::path::parent_path(options.output));
  llvm::sys::path::append(header, lib + ".h");
  return writeFile(header.str().str(), headerText(lib, options, *exports, sigs)) ? ExitSuccess
                                                                                 : ExitUserError;
}

} // namespace dlm
