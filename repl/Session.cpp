//===- repl/Session.cpp - What a REPL session keeps, and running inputs in it ===//
//
// An input runs in three steps (docs/repl.md "How state is kept"):
//   1. check: the program (definitions, variables, input) is parsed and analysed; sema's
//      top-level names say what the input leaves behind and of which types;
//   2. run: the same program with the REPL's own statements after the input (print the
//      expression's value, save each variable the input assigned) is compiled and run on the
//      session's JIT;
//   3. keep: only now do the input's definitions and variables change the session, so an
//      input that fails anywhere changes nothing.
//
//===----------------------------------------------------------------------===//
#include "repl/Session.h"

#include "repl/SavedValues.h"
#include "runtime/Interrupt.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <cstdio>
#include <cstdlib>

namespace dlm::repl {

namespace {

/// The parts' names (CompilerOptions::parts): `<session>` and `<input>` are what users see.
const char *const kSessionPart = "<session>";
const char *const kInputPart = "<input>";
const char *const kVariablesPart = "<session variables>";
const char *const kEpiloguePart = "<repl>";
/// The name an expression's value is bound to, to be printed or its type shown.
const char *const kValueName = "__repl_value";

const ssa::TopLevelName *findName(const std::vector<ssa::TopLevelName> &names,
                                  llvm::StringRef name) {
  auto it = llvm::find_if(names, [&](const ssa::TopLevelName &n) { return n.name == name; });
  return it == names.end() ? nullptr : &*it;
}

const char *kindWord(ssa::TopLevelName::Kind kind) {
  switch (kind) {
  case ssa::TopLevelName::Kind::Function:
    return "function";
  case ssa::TopLevelName::Kind::Module:
    return "module";
  case ssa::TopLevelName::Kind::DType:
    return "dtype";
  case ssa::TopLevelName::Kind::Value:
    break;
  }
  return "value";
}

/// Whether messages are coloured: on a terminal, unless NO_COLOR is set (as `dlm run`).
ColorMode colorMode(bool interactive) {
  const char *noColor = std::getenv("NO_COLOR");
  bool colors = interactive && llvm::errs().has_colors() && !(noColor && *noColor);
  return colors ? ColorMode::Always : ColorMode::Never;
}

/// A DiagnosticEngine whose messages wait until print(), so that they come after everything
/// the program printed to stdout.
class Messages {
public:
  explicit Messages(ColorMode mode) : stream(text), diag(stream, "dlm") { diag.setColorMode(mode); }
  DiagnosticEngine &engine() { return diag; }
  void print() {
    llvm::outs().flush();
    std::fflush(stdout);
    llvm::errs() << text;
    text.clear();
  }

private:
  std::string text;
  llvm::raw_string_ostream stream;
  DiagnosticEngine diag;
};

} // namespace

Session::Session(bool interactive) : interactive(interactive) {
  llvm::SmallString<128> dir;
  llvm::sys::fs::createUniqueDirectory("dlm-repl", dir);
  folder = dir.str().str();
}

Session::~Session() {
  reset();
  llvm::sys::fs::remove(folder);
}

void Session::reset() {
  for (const Variable &v : variables)
    llvm::sys::fs::remove(v.file);
  variables.clear();
  functions.clear();
  imports.clear();
}

bool Session::defines(llvm::StringRef name) const {
  return llvm::any_of(variables, [&](const Variable &v) { return v.name == name; }) ||
         llvm::any_of(functions, [&](const Definition &f) { return f.name == name; });
}

std::vector<std::string> Session::names() const {
  std::vector<std::string> out;
  for (const Variable &v : variables)
    out.push_back(v.name);
  for (const Definition &f : functions)
    out.push_back(f.name);
  return out;
}

std::optional<InputOutline> Session::parseInput(const SourcePart &input) {
  Messages messages(colorMode(interactive));
  DiagnosticEngine &diag = messages.engine();
  std::optional<InputOutline> outline = outlineInput(diag, diag.addBuffer(input.text, input.name));
  messages.print();
  return outline;
}

std::vector<SourcePart> Session::program(const InputOutline *outline, const SourcePart &input,
                                         const std::string &epilogue) const {
  auto redefined = [&](const Definition &d) {
    return outline && llvm::any_of(outline->definitions, [&](const Definition &n) {
             return n.kind == d.kind && n.name == d.name;
           });
  };
  std::string definitions;
  for (const std::vector<Definition> *list : {&imports, &functions})
    for (const Definition &d : *list)
      if (!redefined(d))
        definitions += d.text + "\n";
  std::string restores;
  for (const Variable &v : variables)
    restores += v.name + " = " + v.restore + "\n";
  std::vector<SourcePart> parts;
  if (!definitions.empty())
    parts.push_back({kSessionPart, definitions, ""});
  if (!restores.empty())
    parts.push_back({kVariablesPart, restores, ""});
  parts.push_back(input);
  if (!epilogue.empty())
    parts.push_back({kEpiloguePart, epilogue, ""});
  return parts;
}

bool Session::compile(std::vector<SourcePart> parts, EmitKind emit, llvm::raw_ostream &os,
                      llvm::function_ref<bool(Compilation &)> then) {
  Messages messages(colorMode(interactive));
  DiagnosticEngine &diag = messages.engine();
  diag.setPrintHook([&](const Diagnostic &d, llvm::raw_ostream &out, bool colors) {
    return printVariableNote(diag, d, out, colors);
  });
  CompilerOptions options;
  options.parts = std::move(parts);
  options.emit = emit;
  Compilation compilation(std::move(options), diag);
  bool ok = compilation.loadInput() && compilation.run(os);
  if (ok && then)
    ok = then(compilation);
  os.flush();
  if (interactive && dlm_interrupt_requested()) {
    llvm::outs().flush();
    llvm::errs() << "\n"; // past the terminal's echo of ^C
  }
  messages.print();
  return ok && !diag.hasErrors();
}

bool Session::printVariableNote(const DiagnosticEngine &diag, const Diagnostic &note,
                                llvm::raw_ostream &os, bool colors) const {
  if (note.kind != DiagKind::Note || diag.getBufferName(note.range.Start) != kVariablesPart)
    return false;
  unsigned line = diag.getLineAndColumn(note.range.Start).first;
  if (line == 0 || line > variables.size())
    return false;
  const Variable &v = variables[line - 1];
  llvm::SMDiagnostic(kSessionPart, llvm::SourceMgr::DK_Note,
                     "'" + v.name + "' is " + v.type.str() + ", a variable of this session")
      .print(nullptr, os, colors);
  return true;
}

bool Session::interrupted() {
  if (!dlm_interrupt_requested())
    return false;
  llvm::outs().flush();
  llvm::errs() << (interactive ? "\n" : "") << "dlm: error: " << rt::kInterruptedMessage << "\n";
  dlm_interrupt_clear();
  return true;
}

bool Session::run(llvm::StringRef text, llvm::StringRef name, bool showValue) {
  SourcePart input{name.str(), text.str(), ""};
  std::optional<InputOutline> outline = parseInput(input);
  if (!outline)
    return false;
  if (outline->definitions.empty() && !outline->hasStatements)
    return true; // blank lines and comments
  if (showValue && outline->isExpression)
    input.bindValueTo = kValueName;
  // 1. Check the program; sema's top-level names are what the input leaves behind.
  std::vector<ssa::TopLevelName> topLevel;
  bool ok = compile(program(&*outline, input), EmitKind::SSA, llvm::nulls(), [&](Compilation &c) {
    topLevel = c.getProgram()->topLevel;
    return checkValues(c.getDiagnostics(), *outline, topLevel, input.bindValueTo);
  });
  if (!ok || interrupted())
    return false;
  const ssa::TopLevelName *value =
      input.bindValueTo.empty() ? nullptr : findName(topLevel, kValueName);
  // The variables the input leaves: names it assigns that are still bound at its end (on
  // every path, or session variables it updates in a loop or branch: dlm's scoping).
  std::vector<const ssa::TopLevelName *> kept;
  for (const std::string &n : outline->assigned)
    if (const ssa::TopLevelName *top = findName(topLevel, n))
      kept.push_back(top);
  // 2. Run the statements.
  std::vector<std::string> files(kept.size());
  if (outline->hasStatements && !runChecked(*outline, input, value, kept, files)) {
    for (const std::string &file : files)
      llvm::sys::fs::remove(file);
    return false;
  }
  // 3. Keep what the input defined and assigned.
  for (const Definition &d : outline->definitions)
    define(d, name);
  for (size_t i = 0; i < kept.size(); ++i)
    keep(*kept[i], files[i]);
  return true;
}

bool Session::checkValues(DiagnosticEngine &diag, const InputOutline &outline,
                          const std::vector<ssa::TopLevelName> &topLevel,
                          llvm::StringRef valueName) {
  bool ok = true;
  for (const std::string &n : outline.assigned) {
    const ssa::TopLevelName *top = findName(topLevel, n);
    if (top && top->kind != ssa::TopLevelName::Kind::Value)
      ok = diag.error(top->loc, "'" + n +
                                    "' would hold a function, module or dtype: a session "
                                    "variable holds a value (tensors, numbers, tuples of them)");
  }
  const ssa::TopLevelName *value = valueName.empty() ? nullptr : findName(topLevel, valueName);
  if (value && value->kind != ssa::TopLevelName::Kind::Value)
    ok =
        diag.error(value->loc, llvm::Twine("a ") + kindWord(value->kind) + " has no value to show");
  return ok;
}

bool Session::runChecked(const InputOutline &outline, const SourcePart &input,
                         const ssa::TopLevelName *value,
                         const std::vector<const ssa::TopLevelName *> &kept,
                         std::vector<std::string> &files) {
  std::string epilogue;
  if (value && value->type.kind() != Type::Kind::None)
    epilogue += std::string("print(") + kValueName + ")\n";
  for (size_t i = 0; i < kept.size(); ++i) {
    files[i] = folder + "/" + kept[i]->name + "." + std::to_string(nextFile++) + ".st";
    epilogue += saveStatement(kept[i]->name, kept[i]->type, files[i]);
  }
  bool ok = compile(program(&outline, input, epilogue), EmitKind::None, llvm::outs(),
                    [&](Compilation &c) { return !interrupted() && jit.run(c) == 0; });
  dlm_interrupt_clear(); // a run stopped by Ctrl-C has reported "interrupted" at its loop
  return ok;
}

void Session::define(Definition definition, llvm::StringRef origin) {
  // The session's definitions are relative to the working directory: a file's import of
  // another file is kept with the path from here (`import "lib/util"` for `import ./util`
  // in lib/model.dlm).
  llvm::StringRef dir = llvm::sys::path::parent_path(origin);
  if (!definition.importPath.empty() && !dir.empty()) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, definition.importPath);
    definition.text = "import \"" + std::string(path) + "\"";
  }
  std::vector<Definition> &list = definition.kind == Definition::Kind::Import ? imports : functions;
  auto it = llvm::find_if(list, [&](const Definition &d) { return d.name == definition.name; });
  if (it != list.end())
    *it = definition; // later programs see only the new one
  else
    list.push_back(definition);
}

void Session::keep(const ssa::TopLevelName &name, const std::string &file) {
  auto old = llvm::find_if(variables, [&](const Variable &v) { return v.name == name.name; });
  size_t at = old - variables.begin();
  if (old != variables.end()) {
    llvm::sys::fs::remove(old->file);
    variables.erase(old);
  }
  std::optional<std::string> restore = restoreExpression(name.type, file);
  if (!restore) {
    llvm::sys::fs::remove(file);
    std::string type = name.type.str();
    if (type.size() > 60)
      type = type.substr(0, 57) + "...";
    llvm::outs().flush();
    llvm::WithColor::note(llvm::errs(), "dlm", colorMode(interactive) == ColorMode::Never)
        << "'" << name.name << "' (" << type << ") is not kept across inputs\n";
    return;
  }
  variables.insert(variables.begin() + at, Variable{name.name, name.type, *restore, file});
}

bool Session::showType(llvm::StringRef expr) {
  SourcePart input{kInputPart, expr.str(), kValueName};
  std::optional<InputOutline> outline = parseInput(input);
  if (!outline)
    return false;
  if (!outline->isExpression) {
    llvm::errs() << "dlm: error: :type shows the type of an expression, not of a statement\n";
    return false;
  }
  Type type;
  bool ok = compile(program(&*outline, input), EmitKind::SSA, llvm::nulls(), [&](Compilation &c) {
    const ssa::TopLevelName *value = findName(c.getProgram()->topLevel, kValueName);
    if (!value)
      return c.getDiagnostics().error("internal error: the REPL found no type for the expression");
    if (value->kind != ssa::TopLevelName::Kind::Value)
      return c.getDiagnostics().error(value->loc,
                                      ":type shows the type of a value, not of a function, module "
                                      "or dtype (try :type f(...))");
    type = value->type;
    return true;
  });
  if (ok)
    llvm::outs() << type.str() << "\n";
  return ok;
}

bool Session::printStage(llvm::StringRef statement, EmitKind emit, llvm::raw_ostream &os) {
  return compile(program(nullptr, {kInputPart, statement.str(), ""}), emit, os);
}

} // namespace dlm::repl
