//===- repl/Repl.cpp - The interactive dlm session ------------------------===//
//
// The session keeps its definitions as source (imports, defs) and the values of top-level
// variables as files in a private folder: tensors and tuples of tensors as safetensors files
// written by `save`, scalars as literals. Each input becomes one program: imports, defs, one
// `load`/literal line per variable (with its exact dtype and shape), the input, and `save`s for
// the variables the input assigns. Nothing earlier is re-run. docs/repl.md has the details.
//
//===----------------------------------------------------------------------===//
#include "repl/Repl.h"

#include "compiler/codegen/Codegen.h"
#include "compiler/driver/Compilation.h"
#include "compiler/frontend/Parse.h"
#include "compiler/sema/SSA.h"
#include "compiler/sema/Sema.h"
#include "runtime/Interrupt.h"

#include "llvm/LineEditor/LineEditor.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <unistd.h>

namespace dlm {
namespace {

const char *const kKeep = "__repl_keep";
const char *const kCommands[] = {":help", ":type", ":graph", ":grad", ":dot",
                                 ":time", ":load", ":reset", ":quit"};
/// What Tab completes besides the session's own names, each taken from where the language
/// defines it, so that the list cannot fall behind: the grammar's keywords, sema's table of
/// built-in functions, the dtypes, and every stdlib module with its functions ("nn",
/// "nn.linear", ...) as the module files in `stdlibDir` define them today.
std::vector<std::string> languageNames(const std::string &stdlibDir) {
  std::vector<std::string> names = keywords();
  for (std::string &b : builtinFunctionNames())
    names.push_back(std::move(b));
  for (int t = (int)DType::F32; t <= (int)DType::Bool; ++t)
    names.emplace_back(dtypeName((DType)t));
  std::vector<std::string> modules;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(stdlibDir, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".dlm")
      modules.push_back(it->path());
  std::sort(modules.begin(), modules.end());
  for (const std::string &path : modules) {
    std::string module = llvm::sys::path::stem(path).str();
    names.push_back(module);
    DiagnosticEngine quiet(llvm::nulls()); // a module that does not parse offers its name only
    if (std::unique_ptr<Module> ast = parseFile(quiet, path))
      for (FunctionDefStmt *def : ast->getStmtsOfKind<FunctionDefStmt>())
        names.push_back(module + "." + def->getName().str());
  }
  return names;
}

/// One top-level variable: its type and how the next program gets it back.
struct Variable {
  std::string name;
  Type type;
  std::string restore; ///< the right-hand side that recreates it, e.g. `load(...)` or `3.5`
};

std::string dtypeSpelling(DType t) { return std::string(dtypeName(t)); }

/// Reads the leaves' shapes and raw data of a safetensors file written by `save`.
struct SavedLeaf {
  std::vector<int64_t> shape;
  std::string bytes;
};
std::optional<std::vector<SavedLeaf>> readSaved(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return std::nullopt;
  llvm::StringRef data = (*buffer)->getBuffer();
  if (data.size() < 8)
    return std::nullopt;
  uint64_t headerSize = 0;
  std::memcpy(&headerSize, data.data(), 8);
  llvm::StringRef header = data.substr(8, headerSize);
  llvm::StringRef payload = data.substr(8 + headerSize);
  std::vector<SavedLeaf> leaves;
  for (unsigned i = 0;; ++i) {
    std::string key = "\"" + std::to_string(i) + "\":{";
    size_t at = header.find(key);
    if (at == llvm::StringRef::npos)
      break;
    llvm::StringRef rest = header.substr(at);
    SavedLeaf leaf;
    llvm::StringRef shape = rest.substr(rest.find("\"shape\":[") + 9);
    shape = shape.take_until([](char c) { return c == ']'; });
    llvm::SmallVector<llvm::StringRef> dims;
    shape.split(dims, ',', -1, false);
    for (llvm::StringRef d : dims)
      leaf.shape.push_back(std::atoll(d.trim().str().c_str()));
    llvm::StringRef offsets = rest.substr(rest.find("\"data_offsets\":[") + 16);
    uint64_t begin = 0, end = 0;
    auto [b, e] = offsets.take_until([](char c) { return c == ']'; }).split(',');
    b.trim().getAsInteger(10, begin);
    e.trim().getAsInteger(10, end);
    leaf.bytes = payload.substr(begin, end - begin).str();
    leaves.push_back(std::move(leaf));
  }
  return leaves;
}

/// `zeros(...)`-like expression with `type`'s structure and the saved leaves' shapes.
bool likeExpr(const Type &type, const std::vector<SavedLeaf> &leaves, size_t &next,
              std::string &out) {
  if (type.isTensor()) {
    if (next >= leaves.size())
      return false;
    out += "zeros((";
    for (int64_t d : leaves[next].shape)
      out += std::to_string(d) + ",";
    out += "), dtype=" + dtypeSpelling(type.dtype()) + ")";
    ++next;
    return true;
  }
  if (!type.isTuple() || type.elements().empty())
    return false;
  out += "(";
  for (const Type &element : type.elements()) {
    if (!likeExpr(element, leaves, next, out))
      return false;
    out += ", ";
  }
  out += ")";
  return true;
}

bool isTensorTree(const Type &type) {
  if (type.isTensor())
    return true;
  if (!type.isTuple() || type.elements().empty())
    return false;
  for (const Type &element : type.elements())
    if (!isTensorTree(element))
      return false;
  return true;
}

/// One logical line of an input (physical lines joined inside brackets or after a trailing
/// `\\`) and the statements indented under it.
struct Statement {
  llvm::StringRef text; ///< without the indentation
  std::vector<Statement> body;
};

/// Splits `input` into statements nested by indentation. Blank and comment lines are dropped.
std::vector<Statement> statementTree(llvm::StringRef input) {
  struct Logical {
    size_t indent;
    llvm::StringRef text;
  };
  std::vector<Logical> logical;
  size_t begin = 0;
  int depth = 0;
  char quote = 0;
  bool comment = false;
  for (size_t i = 0; i <= input.size(); ++i) {
    char c = i < input.size() ? input[i] : '\n';
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (comment && c != '\n')
      continue;
    if (c == '#')
      comment = true;
    else if (c == '"' || c == '\'')
      quote = c;
    else if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    else if (c == '\n') {
      comment = false;
      llvm::StringRef line = input.slice(begin, i);
      if (depth > 0 || line.split('#').first.rtrim().ends_with("\\"))
        continue;
      llvm::StringRef text = line.ltrim();
      if (!text.empty() && !text.starts_with("#"))
        logical.push_back({line.size() - text.size(), text.rtrim()});
      begin = i + 1;
      depth = 0;
    }
  }
  // Nest by indentation: a statement owns the following ones indented deeper than it.
  std::function<std::vector<Statement>(size_t &, size_t)> nest = [&](size_t &at, size_t indent) {
    std::vector<Statement> out;
    while (at < logical.size() && logical[at].indent >= indent) {
      Statement st{logical[at].text, {}};
      size_t own = logical[at].indent;
      ++at;
      if (at < logical.size() && logical[at].indent > own)
        st.body = nest(at, logical[at].indent);
      out.push_back(std::move(st));
    }
    return out;
  };
  size_t at = 0;
  std::vector<Statement> top;
  while (at < logical.size()) { // a first line indented deeper than a later one still counts
    std::vector<Statement> part = nest(at, logical[at].indent);
    top.insert(top.end(), part.begin(), part.end());
  }
  return top;
}

/// The block keyword a statement starts with ("if", "while", ...), or "".
llvm::StringRef blockKeyword(llvm::StringRef text) {
  llvm::StringRef word = text.take_while([](char c) { return std::isalnum(c) || c == '_'; });
  for (const char *k : {"if", "elif", "else", "while", "for", "def"})
    if (word == k)
      return word;
  return "";
}

/// The names an assignment statement binds (`a = ...`, `a, b = ...`, `(a, b) = ...`, `a += ...`).
std::vector<std::string> boundNames(llvm::StringRef text) {
  static const llvm::Regex assign(
      "^\\(?([A-Za-z_][A-Za-z_0-9]*([ \t]*,[ \t]*[A-Za-z_][A-Za-z_0-9]*)*)"
      "[ \t]*,?[ \t]*\\)?[ \t]*(=[^=]|[-+*/@]=)");
  std::vector<std::string> names;
  llvm::SmallVector<llvm::StringRef> m;
  if (!assign.match(text, &m))
    return names;
  llvm::SmallVector<llvm::StringRef> parts;
  m[1].split(parts, ',');
  for (llvm::StringRef p : parts)
    names.push_back(p.trim().str());
  return names;
}

/// Collects, for `stmts` run in order, the names bound on every path through them (`defined`:
/// dlm keeps a name after an `if` only when every branch binds it, never one first bound in a
/// loop) and every name assigned anywhere (`anywhere`), in order of appearance. defs are skipped.
void collectAssignments(const std::vector<Statement> &stmts, std::vector<std::string> &defined,
                        std::vector<std::string> &anywhere) {
  auto addTo = [](std::vector<std::string> &set, const std::string &name) {
    if (std::find(set.begin(), set.end(), name) == set.end())
      set.push_back(name);
  };
  // A header with its body on the same line (`if c: x = 1`) has that statement as its body.
  auto bodyOf = [](const Statement &st) {
    if (!st.body.empty())
      return st.body;
    std::vector<Statement> inline_;
    int depth = 0;
    for (size_t i = 0; i < st.text.size(); ++i) {
      char c = st.text[i];
      if (c == '(' || c == '[' || c == '{')
        ++depth;
      else if (c == ')' || c == ']' || c == '}')
        --depth;
      else if (c == ':' && depth == 0) {
        llvm::StringRef rest = st.text.substr(i + 1).trim();
        if (!rest.empty() && !rest.starts_with("#"))
          inline_.push_back({rest, {}});
        break;
      }
    }
    return inline_;
  };
  for (size_t i = 0; i < stmts.size(); ++i) {
    llvm::StringRef kw = blockKeyword(stmts[i].text);
    if (kw == "def")
      continue;
    if (kw == "while" || kw == "for") {
      std::vector<std::string> inLoop;
      collectAssignments(bodyOf(stmts[i]), inLoop, anywhere);
      continue;
    }
    if (kw == "if") {
      // The chain if / elif... / else: a name survives when every branch binds it.
      std::optional<std::vector<std::string>> common;
      bool hasElse = false;
      for (size_t j = i; j < stmts.size(); ++j) {
        llvm::StringRef k = blockKeyword(stmts[j].text);
        if (j > i && k != "elif" && k != "else")
          break;
        std::vector<std::string> branch = defined;
        collectAssignments(bodyOf(stmts[j]), branch, anywhere);
        if (common) {
          std::vector<std::string> both;
          for (const std::string &n : *common)
            if (std::find(branch.begin(), branch.end(), n) != branch.end())
              both.push_back(n);
          common = both;
        } else {
          common = branch;
        }
        hasElse = k == "else";
        i = j;
      }
      if (hasElse)
        for (const std::string &n : *common)
          addTo(defined, n);
      continue;
    }
    for (const std::string &n : boundNames(stmts[i].text)) {
      addTo(defined, n);
      addTo(anywhere, n);
    }
  }
}

/// The variables `input` leaves for the session: those bound on every path through it, and the
/// session's own variables it reassigns anywhere (a loop or `if` updating a variable that
/// existed before carries the new value out, as in a program).
std::vector<std::string> assignedNames(llvm::StringRef input,
                                       const std::vector<std::string> &existing) {
  std::vector<std::string> defined, anywhere;
  collectAssignments(statementTree(input), defined, anywhere);
  std::vector<std::string> names;
  for (const std::string &n : anywhere)
    if (std::find(defined.begin(), defined.end(), n) != defined.end() ||
        std::find(existing.begin(), existing.end(), n) != existing.end())
      names.push_back(n);
  return names;
}

bool isKeyword(llvm::StringRef word) {
  for (const char *k : {"if", "elif", "else", "while", "for", "def", "return", "import", "pass",
                        "break", "continue", "assert"})
    if (word == k)
      return true;
  return false;
}

class Session {
public:
  Session(const char *argv0, bool interactive) : argv0(argv0), interactive(interactive) {
    llvm::SmallString<128> dir;
    llvm::sys::fs::createUniqueDirectory("dlm-repl", dir);
    folder = dir.str().str();
  }
  void removeFiles() {
    for (const Variable &v : vars)
      llvm::sys::fs::remove(fileOf(v.name));
    llvm::sys::fs::remove(folder + "/input.dlm");
    llvm::sys::fs::remove(folder);
  }

  /// Executes one complete input (a block); false after an error.
  bool execute(llvm::StringRef input);
  std::vector<std::string> completions(llvm::StringRef prefix) const;
  bool quit = false;
  /// Whether the session has a variable or a function called `name`.
  bool defines(llvm::StringRef name) const {
    return std::any_of(vars.begin(), vars.end(),
                       [&](const Variable &v) { return v.name == name; }) ||
           std::any_of(functions.begin(), functions.end(),
                       [&](const auto &f) { return f.first == name; });
  }

private:
  std::string fileOf(llvm::StringRef name) const { return folder + "/" + name.str() + ".st"; }
  std::string prelude(unsigned &lines) const;
  /// Compiles `body` after the prelude. With `typesOf`, stops after sema and returns the
  /// argument types of the trailing `__repl_keep(...)` calls.
  /// `lead` lines at the start of `body` are the REPL's own (a `print(` wrapper): diagnostics
  /// count the input's lines after them.
  bool compile(llvm::StringRef body, EmitKind emit, llvm::raw_ostream &os,
               const std::function<bool(Compilation &)> &then, unsigned lead = 0);
  bool typesOf(llvm::StringRef body, size_t count, std::vector<Type> &types, unsigned lead = 0);
  bool runStatements(llvm::StringRef input);
  bool define(llvm::StringRef input);
  bool command(llvm::StringRef input);
  /// `wrapped`: the one-line input a `print(`/probe wrapper holds, whose closing `)` is on the
  /// line after it (an error there is reported at the end of the input).
  /// Lines `firstVarLine` .. `firstVarLine + vars.size() - 1` of the prelude restore the
  /// session's variables: a diagnostic there (a "defined here" note) names the variable
  /// without showing the REPL's own `load(...)` line.
  void printDiagnostics(llvm::StringRef text, unsigned preludeLines, unsigned firstVarLine,
                        std::optional<llvm::StringRef> wrapped = std::nullopt);
  bool interrupted();

  const char *argv0;
  bool interactive;
  /// languageNames(), read on the first Tab.
  mutable std::vector<std::string> languageNamesCache;
  std::string folder;
  std::vector<std::string> imports;
  std::vector<std::pair<std::string, std::string>> functions; ///< name, source
  std::vector<Variable> vars;
  codegen::JitSession jit; ///< runs every input (each its own program, cached by its graph)
};

std::string Session::prelude(unsigned &lines) const {
  std::string text;
  for (const std::string &i : imports)
    text += i + "\n";
  for (const auto &[name, source] : functions)
    text += source + "\n";
  for (const Variable &v : vars)
    text += v.name + " = " + v.restore + "\n";
  lines = llvm::StringRef(text).count('\n');
  return text;
}

/// The REPL's own wrappers in messages about a function, module or dtype where a value was
/// expected: a printed expression is `print(...)`, a variable's or :type's probe is a def
/// returning its argument (`g = f`, `:type f`). Says it in the terms of what was typed.
void explainProbeErrors(std::string &messages, bool printed) {
  if (printed)
    for (const char *what : {"function", "module", "dtype"}) {
      std::string from = std::string("print() cannot print a ") + what;
      for (size_t at; (at = messages.find(from)) != std::string::npos;)
        messages.replace(at, from.size(), std::string("a ") + what + " has no value to show");
    }
  const std::string probeError = "unsupported construct: returning a function, module or dtype";
  size_t at = messages.find(probeError);
  if (at == std::string::npos || messages.find(kKeep) == std::string::npos)
    return;
  // The error (its line, source line and caret) and the note at the probe's call after it.
  size_t begin = messages.rfind('\n', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  auto afterLines = [&](size_t from, int count) {
    for (int line = 0; line < count && from < messages.size(); ++line) {
      size_t next = messages.find('\n', from);
      from = next == std::string::npos ? messages.size() : next + 1;
    }
    return from;
  };
  size_t end = afterLines(begin, 3);
  llvm::StringRef next = llvm::StringRef(messages).substr(end).split('\n').first;
  if (next.contains("note:") && next.contains(kKeep))
    end = afterLines(end, 3);
  llvm::SmallVector<llvm::StringRef> match;
  llvm::Regex call(std::string(kKeep) + "[0-9]+\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
  std::string explained =
      call.match(llvm::StringRef(messages).slice(begin, end), &match)
          ? "dlm: error: '" + match[1].str() + "' would hold a function, module or dtype: a " +
                "session variable holds a value (tensors, numbers, tuples of them)\n"
          : std::string("dlm: error: :type shows the type of a value, not of a function, module "
                        "or dtype (try :type f(...))\n");
  messages.replace(begin, end - begin, explained);
}

/// Rewrites `<session>:LINE:` positions so that they count lines from the input's first line.
void Session::printDiagnostics(llvm::StringRef text, unsigned preludeLines, unsigned firstVarLine,
                               std::optional<llvm::StringRef> wrapped) {
  std::string program = folder + "/input.dlm:";
  std::string out;
  while (!text.empty()) {
    size_t at = text.find(program);
    out += text.substr(0, at).str();
    if (at == llvm::StringRef::npos)
      break;
    text = text.substr(at + program.size());
    unsigned line = 0;
    llvm::StringRef digits = text.take_while([](char c) { return std::isdigit(c); });
    digits.getAsInteger(10, line);
    text = text.substr(digits.size());
    if (wrapped && line == preludeLines + 2) {
      // The `)` closing a one-line input's wrapper: report the end of what was typed.
      llvm::StringRef col = text.drop_front().take_while([](char c) { return std::isdigit(c); });
      auto [message, rest] = text.drop_front(1 + col.size()).split('\n');
      auto [source, afterSource] = rest.split('\n');
      auto [caret, afterCaret] = afterSource.split('\n');
      if (source.trim() == ")" && caret.trim() == "^") {
        out += "<input>:1:" + std::to_string(wrapped->size() + 1) + message.str() + "\n" +
               wrapped->str() + "\n" + std::string(wrapped->size(), ' ') + "^\n";
        text = afterCaret;
        continue;
      }
    }
    if (line >= firstVarLine && line < firstVarLine + vars.size()) {
      // `x = load("/tmp/dlm-repl-.../x.st", like=...)` is the REPL's, not the user's: the
      // message without a position, source line or caret ("'x' is f32[2, 3], a variable of
      // this session").
      auto [head, afterHead] = text.split('\n'); // ":COL: note: 'x' is ..., defined here"
      std::string message = head.split(' ').second.str();
      size_t defined = message.rfind(", defined here");
      if (defined != std::string::npos)
        message.replace(defined, std::strlen(", defined here"), ", a variable of this session");
      out += "<session>: " + message + "\n";
      auto [source, afterSource] = afterHead.split('\n');
      auto [caret, afterCaret] = afterSource.split('\n');
      text = caret.contains('^') ? afterCaret : afterHead;
      continue;
    }
    out += line > preludeLines ? "<input>:" + std::to_string(line - preludeLines)
                               : "<session>:" + std::to_string(line);
  }
  llvm::errs() << out;
}

bool Session::compile(llvm::StringRef body, EmitKind emit, llvm::raw_ostream &os,
                      const std::function<bool(Compilation &)> &then, unsigned lead) {
  unsigned lines = 0;
  std::string source = prelude(lines) + body.str() + "\n";
  std::string path = folder + "/input.dlm";
  {
    std::error_code ec;
    llvm::raw_fd_ostream file(path, ec);
    if (ec) {
      llvm::errs() << "dlm: error: cannot write " << path << ": " << ec.message() << "\n";
      return false;
    }
    file << source;
  }
  std::string messages;
  llvm::raw_string_ostream diagStream(messages);
  DiagnosticEngine diag(diagStream, "dlm");
  diag.setColorMode(interactive ? ColorMode::Auto : ColorMode::Never);
  CompilerOptions options;
  options.input = path;
  options.emit = emit;
  Compilation compilation(options, diag);
  bool ok = compilation.loadInput() && compilation.run(os);
  if (ok && then)
    ok = then(compilation);
  os.flush();
  llvm::outs().flush();
  if (interactive && dlm_interrupt_requested())
    llvm::errs() << "\n"; // past the terminal's echo of ^C
  std::optional<llvm::StringRef> wrapped;
  if (lead > 0)
    wrapped = body.split('\n').second.split('\n').first;
  explainProbeErrors(messages, lead > 0);
  printDiagnostics(messages, lines + lead, lines - vars.size() + 1, wrapped);
  return ok && !diag.hasErrors();
}

/// Ctrl-C before the program started (while it was being compiled): says so and withdraws
/// the request. A running program stops by itself (runtime/Interrupt.h).
bool Session::interrupted() {
  if (!dlm_interrupt_requested())
    return false;
  llvm::outs().flush();
  llvm::errs() << (interactive ? "\n" : "") << "dlm: error: " << rt::kInterruptedMessage << "\n";
  dlm_interrupt_clear();
  return true;
}

bool Session::typesOf(llvm::StringRef body, size_t count, std::vector<Type> &types, unsigned lead) {
  // Each of the last `count` probes `__repl_keep(v)` (a line starting so) becomes
  // `__repl_keepK(v)` with its own identity function: the specialisation's result type is v's
  // type (calls with constant arguments may be folded away, the specialised function is not).
  llvm::SmallVector<llvm::StringRef> lines;
  body.rtrim().split(lines, '\n');
  std::vector<size_t> probes;
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].starts_with(std::string(kKeep) + "("))
      probes.push_back(i);
  if (probes.size() > count)
    probes.erase(probes.begin(), probes.end() - count);
  std::string text, defs;
  for (size_t i = 0; i < lines.size(); ++i) {
    size_t k = std::find(probes.begin(), probes.end(), i) - probes.begin();
    if (k < probes.size()) {
      std::string fn = std::string(kKeep) + std::to_string(k);
      defs += "def " + fn + "(v):\n    return v\n";
      text += fn + lines[i].drop_front(std::strlen(kKeep)).str() + "\n";
    } else {
      text += lines[i].str() + "\n";
    }
  }
  // The defs go last so that line numbers in the input stay as typed.
  return compile(
      text + defs, EmitKind::SSA, llvm::nulls(),
      [&](Compilation &c) {
        types.clear();
        for (size_t k = 0; k < count; ++k) {
          std::string fn = std::string(kKeep) + std::to_string(k);
          const ssa::Function *found = nullptr;
          for (const auto &f : c.getProgram()->functions)
            if (f->name == fn || llvm::StringRef(f->name).starts_with(fn + "."))
              found = f.get();
          if (!found) {
            c.getDiagnostics().error("internal error: the REPL found no type for a variable");
            return false;
          }
          types.push_back(found->resultType);
        }
        return true;
      },
      lead);
}

bool Session::define(llvm::StringRef input) {
  bool isImport = input.starts_with("import");
  auto savedImports = imports;
  auto savedFunctions = functions;
  if (isImport) {
    if (std::find(imports.begin(), imports.end(), input.trim().str()) == imports.end())
      imports.push_back(input.trim().str());
  } else {
    llvm::StringRef name =
        input.drop_front(4).ltrim().take_while([](char c) { return std::isalnum(c) || c == '_'; });
    auto it = std::find_if(functions.begin(), functions.end(),
                           [&](const auto &f) { return f.first == name; });
    if (it != functions.end())
      it->second = input.rtrim().str(); // redefinition: later programs see only the new one
    else
      functions.emplace_back(name.str(), input.rtrim().str());
  }
  std::vector<Type> types;
  if (!compile("", EmitKind::SSA, llvm::nulls(), nullptr)) {
    imports = savedImports;
    functions = savedFunctions;
    return false;
  }
  return true;
}

/// True when `input` is one expression statement whose value should be printed.
bool isPrintableExpression(llvm::StringRef input,
                           const std::vector<std::pair<std::string, std::string>> &functions) {
  input = input.trim();
  if (input.contains('\n') || input.empty())
    return false;
  llvm::StringRef first = input.take_while([](char c) { return std::isalnum(c) || c == '_'; });
  if (isKeyword(first))
    return false;
  int depth = 0;
  for (size_t i = 0; i < input.size(); ++i) {
    char c = input[i];
    if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    else if (c == '"' || c == '\'') {
      size_t end = input.find(c, i + 1);
      i = end == llvm::StringRef::npos ? input.size() : end;
    } else if (c == '=' && depth == 0) {
      char prev = i ? input[i - 1] : ' ';
      char next = i + 1 < input.size() ? input[i + 1] : ' ';
      if (next != '=' && !llvm::StringRef("=!<>").contains(prev))
        return false;
    }
  }
  if (input.starts_with(first.str() + "(")) {
    if (first == "print" || first == "save" || first == "seed")
      return false;
    for (const auto &[name, source] : functions)
      if (name == first) {
        llvm::Regex valueReturn("return[ \t]+[^ \t\n]");
        return valueReturn.match(source);
      }
  }
  return true;
}

bool Session::runStatements(llvm::StringRef input) {
  std::vector<std::string> existing;
  for (const Variable &v : vars)
    existing.push_back(v.name);
  std::vector<std::string> names = assignedNames(input, existing);
  std::string body = input.rtrim().str() + "\n";
  // A printed expression goes on a line of its own inside `print(`...`)`, so that diagnostics
  // show it as typed.
  unsigned lead = 0;
  if (isPrintableExpression(input, functions)) {
    body = "print(\n" + input.rtrim().str() + "\n)\n";
    lead = 1;
  }
  // 1. Check the input and learn the types of the variables it assigns.
  std::string probe = body;
  for (const std::string &n : names)
    probe += std::string(kKeep) + "(" + n + ")\n";
  std::vector<Type> types;
  if (!typesOf(probe, names.size(), types, lead) || interrupted())
    return false;
  // 2. Run it, saving what it assigned.
  std::string program = body;
  for (size_t i = 0; i < names.size(); ++i) {
    const Type &t = types[i];
    std::string file = "\"" + fileOf(names[i]) + "\"";
    if (isTensorTree(t))
      program += "save(" + file + ", " + names[i] + ")\n";
    else if (t.kind() == Type::Kind::Float)
      program += "save(" + file + ", full((1,), " + names[i] + ", dtype=f64))\n";
    else if (t.kind() == Type::Kind::Int)
      program += "save(" + file + ", full((1,), " + names[i] + ", dtype=i64))\n";
    else if (t.kind() == Type::Kind::Bool)
      program += "save(" + file + ", full((1,), 1 if " + names[i] + " else 0, dtype=i64))\n";
  }
  bool ok = compile(
      program, EmitKind::None, llvm::outs(),
      [&](Compilation &c) {
        if (interrupted())
          return false;
        codegen::CodegenOptions options;
        unsigned lines = 0;
        prelude(lines);
        std::string messages;
        llvm::raw_string_ostream diagStream(messages);
        // One JIT for the whole session: every input is a new program in it (docs/repl.md).
        int status = jit.run(*c.getGraph(), c.getDiagnostics(), options);
        return status == 0;
      },
      lead);
  // A run stopped by Ctrl-C has reported "error: interrupted" at the loop it was in.
  dlm_interrupt_clear();
  if (!ok)
    return false;
  // 3. The variables now hold the values the files have.
  for (size_t i = 0; i < names.size(); ++i) {
    const Type &t = types[i];
    Variable v{names[i], t, ""};
    std::optional<std::vector<SavedLeaf>> leaves = readSaved(fileOf(names[i]));
    if (!leaves) {
      std::string type = t.str();
      if (type.size() > 60)
        type = type.substr(0, 57) + "...";
      llvm::errs() << "dlm: note: '" << names[i] << "' (" << type
                   << ") is not kept across inputs\n";
      continue;
    }
    if (isTensorTree(t)) {
      std::string like;
      size_t next = 0;
      if (!likeExpr(t, *leaves, next, like))
        continue;
      v.restore = "load(\"" + fileOf(names[i]) + "\", like=" + like + ")";
    } else if (!leaves->empty() && (*leaves)[0].bytes.size() == 8) {
      const std::string &bytes = (*leaves)[0].bytes;
      if (t.kind() == Type::Kind::Float) {
        double d;
        std::memcpy(&d, bytes.data(), 8);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", d);
        v.restore = buf;
        if (v.restore.find_first_of(".en") == std::string::npos)
          v.restore += ".0";
      } else {
        int64_t n;
        std::memcpy(&n, bytes.data(), 8);
        v.restore = t.kind() == Type::Kind::Bool ? (n ? "True" : "False") : std::to_string(n);
      }
    } else {
      continue;
    }
    auto it =
        std::find_if(vars.begin(), vars.end(), [&](const Variable &x) { return x.name == v.name; });
    if (it != vars.end())
      *it = v;
    else
      vars.push_back(v);
  }
  return true;
}

std::vector<std::string> Session::completions(llvm::StringRef prefix) const {
  std::vector<std::string> all;
  if (prefix.starts_with(":")) {
    for (const char *c : kCommands)
      all.push_back(c);
  } else {
    for (const Variable &v : vars)
      all.push_back(v.name);
    for (const auto &f : functions)
      all.push_back(f.first);
    if (languageNamesCache.empty())
      languageNamesCache = languageNames(findStdlibDir(argv0));
    all.insert(all.end(), languageNamesCache.begin(), languageNamesCache.end());
  }
  auto matching = [&](llvm::StringRef start) {
    std::vector<std::string> out;
    for (const std::string &s : all)
      if (llvm::StringRef(s).starts_with(start) &&
          std::find(out.begin(), out.end(), s) == out.end())
        out.push_back(s);
    return out;
  };
  std::vector<std::string> out = matching(prefix);
  // `x.ast` -> `x.astype`: after a value (not a module), the part after the dot is a method
  // (any built-in function: `x.sum()` is `sum(x)`) or the attribute `shape` or `T`.
  size_t dot = prefix.rfind('.');
  if (out.empty() && dot != llvm::StringRef::npos) {
    std::vector<std::string> members = builtinFunctionNames();
    members.push_back("shape");
    members.push_back("T");
    llvm::StringRef start = prefix.substr(dot + 1);
    for (const std::string &s : members)
      if (llvm::StringRef(s).starts_with(start))
        out.push_back(prefix.substr(0, dot + 1).str() + s);
  }
  return out;
}

const char *kHelp =
    "Enter dlm statements, definitions (def, import) and expressions; an expression's value is\n"
    "printed. A block (def, if, while, for, open brackets, trailing \\) ends with an empty line.\n"
    "Commands:\n"
    "  :help              this text\n"
    "  :type EXPR         type and shape of EXPR (nothing is run)\n"
    "  :graph STMT        the dataflow graph of STMT (e.g. :graph f(x))\n"
    "  :grad STMT         the graph of STMT after differentiation\n"
    "  :dot STMT FILE     write the optimised graph of STMT as Graphviz dot to FILE\n"
    "  :time STMT         run STMT and print the time it took\n"
    "  :load FILE         run a .dlm file in this session\n"
    "  :reset             forget every variable, function and import\n"
    "  :quit              leave (as do Ctrl-D, exit and quit)\n";

/// A command's argument: what it takes (empty for none), for the usage check.
const char *commandArgument(llvm::StringRef name) {
  if (name == ":type")
    return "EXPR";
  if (name == ":graph" || name == ":grad" || name == ":time")
    return "STMT";
  if (name == ":dot")
    return "STMT FILE";
  if (name == ":load")
    return "FILE";
  return "";
}

bool Session::command(llvm::StringRef input) {
  auto [name, arg] = input.trim().split(' ');
  arg = arg.trim();
  bool known = std::find_if(std::begin(kCommands), std::end(kCommands),
                            [&](const char *c) { return name == c; }) != std::end(kCommands) ||
               name == ":q";
  if (!known) {
    llvm::errs() << "dlm: error: unknown command '" << name << "' (:help lists them)\n";
    return false;
  }
  llvm::StringRef takes = commandArgument(name);
  if (takes.empty() != arg.empty()) {
    llvm::errs() << "dlm: error: usage: " << name << (takes.empty() ? "" : " ") << takes
                 << (takes.empty() ? " (takes no argument)" : "") << "\n";
    return false;
  }
  if (name == ":help") {
    llvm::outs() << kHelp;
    return true;
  }
  if (name == ":quit" || name == ":q") {
    quit = true;
    return true;
  }
  if (name == ":reset") {
    for (const Variable &v : vars)
      llvm::sys::fs::remove(fileOf(v.name));
    vars.clear();
    functions.clear();
    imports.clear();
    return true;
  }
  if (name == ":type") {
    std::vector<Type> types;
    // The expression on a line of its own, so that diagnostics show it as typed.
    if (!typesOf(std::string(kKeep) + "(\n" + arg.str() + "\n)", 1, types, 1))
      return false;
    llvm::outs() << types[0].str() << "\n";
    return true;
  }
  if (name == ":graph" || name == ":grad") {
    return compile(arg, name == ":graph" ? EmitKind::Graph : EmitKind::Grad, llvm::outs(), nullptr);
  }
  if (name == ":dot") {
    auto [stmt, file] = arg.rsplit(' ');
    if (file.empty() || stmt.trim().empty()) {
      llvm::errs() << "dlm: error: usage: :dot STMT FILE\n";
      return false;
    }
    std::error_code ec;
    llvm::raw_fd_ostream out(file, ec);
    if (ec) {
      llvm::errs() << "dlm: error: cannot write '" << file << "': " << ec.message() << "\n";
      return false;
    }
    return compile(stmt, EmitKind::Dot, out, nullptr);
  }
  if (name == ":time") {
    auto start = std::chrono::steady_clock::now();
    bool ok = execute(arg);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    llvm::outs() << llvm::format("time: %.3f ms\n", ms);
    return ok;
  }
  if (name == ":load") {
    auto buffer = llvm::MemoryBuffer::getFile(arg);
    if (!buffer) {
      llvm::errs() << "dlm: error: cannot read '" << arg << "': " << buffer.getError().message()
                   << "\n";
      return false;
    }
    // Definitions first, then the statements, each through the usual path.
    llvm::StringRef text = (*buffer)->getBuffer();
    llvm::SmallVector<llvm::StringRef> lines;
    text.split(lines, '\n');
    std::string statements;
    bool ok = true;
    for (size_t i = 0; i < lines.size();) {
      llvm::StringRef line = lines[i];
      if (line.starts_with("def ") || line.starts_with("import ")) {
        std::string block = line.str() + "\n";
        ++i;
        while (i < lines.size() && (lines[i].empty() || lines[i].starts_with(" ") ||
                                    lines[i].starts_with("\t") || lines[i].starts_with("#"))) {
          block += lines[i].str() + "\n";
          ++i;
        }
        ok = define(block) && ok;
        continue;
      }
      statements += line.str() + "\n";
      ++i;
    }
    if (!llvm::StringRef(statements).trim().empty())
      ok = runStatements(statements) && ok;
    return ok;
  }
  llvm::errs() << "dlm: internal error: command '" << name << "' has no implementation\n";
  return false;
}

bool Session::execute(llvm::StringRef input) {
  llvm::StringRef trimmed = input.trim();
  if (trimmed.empty() || trimmed.starts_with("#"))
    return true;
  if (trimmed.starts_with(":"))
    return command(trimmed);
  // What Python's REPL understands: `exit`, `quit` (with or without `()`) leave, `help` is
  // :help; unless the session has a variable or function of that name.
  llvm::StringRef word = trimmed;
  word.consume_back("()");
  if ((word == "exit" || word == "quit" || word == "help") && !defines(word))
    return command(word == "help" ? ":help" : ":quit");
  if (trimmed.starts_with("def ") || trimmed.starts_with("import "))
    return define(input);
  return runStatements(input);
}

/// Whether `text` needs more lines: an open bracket, a trailing `\` or `:`, or a block that
/// has not yet been ended by an empty line.
bool needsMore(llvm::StringRef text, bool lastLineEmpty) {
  if (text.ltrim().starts_with(":"))
    return false; // a command is one line (`:type x[1:]`, `:`)
  // Brackets count outside strings and comments: `print(":(")` and `# f(` are complete.
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote || c == '\n')
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
  }
  if (depth > 0)
    return true;
  llvm::StringRef last = text.rtrim('\n');
  last = last.substr(last.rfind('\n') + 1);
  if (last.rtrim().ends_with("\\"))
    return true;
  // A block's header line ends with ':' (def, if, while, for, else...).
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n', -1, false);
  bool isBlock = false;
  for (llvm::StringRef l : lines) {
    llvm::StringRef code = l.split('#').first.rtrim();
    if (code.ends_with(":"))
      isBlock = true;
  }
  return isBlock && !lastLineEmpty;
}

} // namespace

int runRepl(const char *argv0) {
  bool interactive = isatty(0) && isatty(1);
  Session session(argv0, interactive);
  bool anyError = false;
  std::optional<llvm::LineEditor> editor;
  std::string historyPath;
  if (interactive) {
    if (const char *env = std::getenv("DLM_HISTORY"))
      historyPath = env;
    else if (const char *home = std::getenv("HOME"))
      historyPath = std::string(home) + "/.dlm_history";
    editor.emplace("dlm", historyPath);
    if (!historyPath.empty())
      editor->loadHistory();
    editor->setPrompt(">>> ");
    editor->setListCompleter([&](llvm::StringRef buffer, size_t pos) {
      llvm::StringRef before = buffer.substr(0, pos);
      size_t start = before.find_last_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:.");
      llvm::StringRef word = start == llvm::StringRef::npos ? before : before.substr(start + 1);
      std::vector<llvm::LineEditor::Completion> out;
      for (const std::string &c : session.completions(word))
        out.emplace_back(c.substr(word.size()), c);
      return out;
    });
    llvm::outs() << "dlm REPL — :help for commands, Ctrl-D to exit\n";
    llvm::outs().flush();
  }
  // Ctrl-C stops the running input (runtime/Interrupt.h), or at the prompt drops the line.
  rt::InterruptHandler onCtrlC;
  // What the user typed: a line, nothing more (Ctrl-D, end of input), or Ctrl-C at the prompt.
  enum class Read { Line, End, Cancelled };
  std::string line;
  auto readLine = [&](bool continuation) -> Read {
    if (editor) {
      editor->setPrompt(continuation ? "... " : ">>> ");
      std::optional<std::string> got = editor->readLine();
      if (dlm_interrupt_requested()) { // the editor's read was interrupted, as in Python
        dlm_interrupt_clear();
        llvm::outs() << "\n";
        llvm::outs().flush();
        return Read::Cancelled;
      }
      if (!got)
        return Read::End;
      line = std::move(*got);
      return Read::Line;
    }
    // Piped input: a Ctrl-C while reading stays pending and stops the next input.
    line.clear();
    for (;;) {
      int c = std::getc(stdin);
      if (c == EOF && std::ferror(stdin) && errno == EINTR) {
        std::clearerr(stdin);
        continue;
      }
      if (c == EOF)
        return line.empty() ? Read::End : Read::Line;
      if (c == '\n')
        return Read::Line;
      line += char(c);
    }
  };
  while (!session.quit) {
    Read got = readLine(false);
    if (got == Read::End)
      break;
    if (got == Read::Cancelled)
      continue;
    std::string block = line + "\n";
    bool lastEmpty = llvm::StringRef(line).trim().empty();
    while (got == Read::Line && !llvm::StringRef(block).trim().empty() &&
           needsMore(block, lastEmpty)) {
      got = readLine(true);
      if (got != Read::Line)
        break;
      lastEmpty = llvm::StringRef(line).trim().empty();
      if (lastEmpty && !needsMore(block, true))
        break;
      block += line + "\n";
    }
    if (got == Read::Cancelled) // Ctrl-C inside a block drops the whole block
      continue;
    if (!session.execute(block))
      anyError = true;
    llvm::outs().flush();
    std::fflush(stdout);
  }
  if (editor && !historyPath.empty())
    editor->saveHistory();
  session.removeFiles();
  llvm::outs().flush();
  llvm::errs().flush();
  std::fflush(nullptr);
  return !interactive && anyError ? 1 : 0;
}

} // namespace dlm
