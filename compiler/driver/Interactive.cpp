//===- compiler/driver/Interactive.cpp - What the REPL asks of the compiler ===//
#include "compiler/driver/Interactive.h"

#include "compiler/frontend/AST.h"
#include "compiler/sema/Sema.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace dlm {

namespace {

void addOnce(std::vector<std::string> &names, llvm::StringRef name) {
  if (std::find(names.begin(), names.end(), name) == names.end())
    names.push_back(name.str());
}

/// The names an assignment or loop target binds (`a`, `a, (b, c)`).
void collectTargets(const Expr *target, std::vector<std::string> &out) {
  if (const auto *name = llvm::dyn_cast<NameExpr>(target))
    return addOnce(out, name->getName());
  if (const auto *tuple = llvm::dyn_cast<TupleExpr>(target))
    for (const Expr *element : tuple->getElements())
      collectTargets(element, out);
}

/// The names assigned in `body` and the blocks inside it, defs left out.
void collectAssigned(const Body &body, std::vector<std::string> &out) {
  for (const Stmt *stmt : body) {
    if (const auto *assign = llvm::dyn_cast<AssignStmt>(stmt)) {
      collectTargets(assign->getTarget(), out);
    } else if (const auto *aug = llvm::dyn_cast<AugAssignStmt>(stmt)) {
      collectTargets(aug->getTarget(), out);
    } else if (const auto *ifStmt = llvm::dyn_cast<IfStmt>(stmt)) {
      collectAssigned(ifStmt->getThenBody(), out);
      collectAssigned(ifStmt->getElseBody(), out);
    } else if (const auto *whileStmt = llvm::dyn_cast<WhileStmt>(stmt)) {
      collectAssigned(whileStmt->getBody(), out);
    } else if (const auto *forStmt = llvm::dyn_cast<ForStmt>(stmt)) {
      collectTargets(forStmt->getTarget(), out);
      collectAssigned(forStmt->getBody(), out);
    }
  }
}

/// The source of a top-level statement: from the start of its first line (top-level
/// statements start in column 1) to its end.
std::string sourceOf(const Stmt &stmt) {
  const char *begin = stmt.getBeginLoc().getPointer();
  return llvm::StringRef(begin, stmt.getEndLoc().getPointer() - begin).rtrim().str();
}

/// The functions each stdlib module file defines, as `module.function`, modules in name order.
void addStdlibNames(const std::string &stdlibDir, std::vector<std::string> &names) {
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
      for (FunctionDefStmt *def : ast->getFunctions())
        names.push_back(module + "." + def->getName().str());
  }
}

} // namespace

std::optional<InputOutline> outlineInput(DiagnosticEngine &diag, unsigned bufferID) {
  std::unique_ptr<Module> module = parseBuffer(diag, bufferID);
  if (!module)
    return std::nullopt;
  InputOutline outline;
  Body statements;
  for (Stmt *stmt : module->getBody()) {
    if (const auto *def = llvm::dyn_cast<FunctionDefStmt>(stmt))
      outline.definitions.push_back(
          {Definition::Kind::Function, def->getName().str(), sourceOf(*def), ""});
    else if (const auto *import = llvm::dyn_cast<ImportStmt>(stmt))
      outline.definitions.push_back({Definition::Kind::Import, import->getBindingName().str(),
                                     sourceOf(*import),
                                     import->isPath() ? import->getName().str() : ""});
    else
      statements.push_back(stmt);
  }
  outline.hasStatements = !statements.empty();
  outline.isExpression =
      module->getBody().size() == 1 && statements.size() == 1 && llvm::isa<ExprStmt>(statements[0]);
  collectAssigned(statements, outline.assigned);
  return outline;
}

std::vector<std::string> languageNames(const char *argv0) {
  std::vector<std::string> names = keywords();
  for (std::string &builtin : builtinFunctionNames())
    names.push_back(std::move(builtin));
  for (int t = (int)DType::F32; t <= (int)DType::Bool; ++t)
    names.emplace_back(dtypeName((DType)t));
  addStdlibNames(findStdlibDir(argv0), names);
  return names;
}

std::vector<std::string> memberNames() {
  std::vector<std::string> names = builtinFunctionNames();
  names.push_back("shape");
  names.push_back("T");
  return names;
}

} // namespace dlm
