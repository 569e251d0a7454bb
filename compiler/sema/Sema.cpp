//===- compiler/sema/Sema.cpp - The analyser: modules, diagnostics, entry ---===//
//
// The driver of semantic analysis (statements in SemaStmts.cpp, loops in SemaLoops.cpp, calls
// in SemaCalls.cpp, expressions in SemaExpr.cpp, built-ins in SemaBuiltins.cpp):
//   1. collect the main module's defs and imports (imports are parsed and collected
//      recursively; a cycle is reported with its chain);
//   2. analyse the top-level statements into `main`, specialising each called def at its
//      argument types (cached by def + types; recursion is rejected);
//   3. build structured SSA for if/while/for with joins and loop-carried values, turning
//      break/continue/return inside loops into exit flags;
//   4. flush the diagnostics (buffered, because a loop body is re-analysed until the types of
//      its carried values are stable, and only the final pass may report).
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/SemaImpl.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

namespace dlm {

namespace sema {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string GradCallable::describe() const {
  std::string a;
  for (size_t i = 0; i < argnums.size(); ++i)
    a += (i ? ", " : "") + std::to_string(argnums[i]);
  if (argnumsIsTuple)
    a = "(" + a + (argnums.size() == 1 ? ",)" : ")");
  return std::string(withValue ? "value_and_grad(" : "grad(") + inner->describe() +
         ", argnums=" + a + ")";
}

std::string closestName(llvm::StringRef n, const std::vector<std::string> &candidates) {
  std::string best;
  unsigned bestDist = std::max<unsigned>(1, unsigned(n.size()) / 3) + 1;
  for (const std::string &c : candidates) {
    if (c.empty() || c[0] == '$' || c == n)
      continue;
    unsigned d = n.edit_distance(c, true, bestDist);
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  return best;
}

void collectTargetNames(const Expr *target, std::set<std::string> &out) {
  if (auto *n = llvm::dyn_cast<NameExpr>(target))
    out.insert(n->getName().str());
  else if (auto *t = llvm::dyn_cast<TupleExpr>(target))
    for (const Expr *e : t->getElements())
      collectTargetNames(e, out);
}

void collectAssigned(const Body &body, std::set<std::string> &out) {
  for (const Stmt *s : body) {
    if (auto *a = llvm::dyn_cast<AssignStmt>(s))
      collectTargetNames(a->getTarget(), out);
    else if (auto *a = llvm::dyn_cast<AugAssignStmt>(s))
      out.insert(a->getTarget()->getName().str());
    else if (auto *i = llvm::dyn_cast<IfStmt>(s)) {
      collectAssigned(i->getThenBody(), out);
      collectAssigned(i->getElseBody(), out);
    } else if (auto *w = llvm::dyn_cast<WhileStmt>(s))
      collectAssigned(w->getBody(), out);
    else if (auto *f = llvm::dyn_cast<ForStmt>(s)) {
      collectTargetNames(f->getTarget(), out);
      collectAssigned(f->getBody(), out);
    }
  }
}

bool containsExit(const Body &body, NodeKind kind, bool nestedLoops) {
  for (const Stmt *s : body) {
    if (s->getKind() == kind)
      return true;
    if (auto *i = llvm::dyn_cast<IfStmt>(s)) {
      if (containsExit(i->getThenBody(), kind, nestedLoops) ||
          containsExit(i->getElseBody(), kind, nestedLoops))
        return true;
    } else if (auto *w = llvm::dyn_cast<WhileStmt>(s)) {
      if (nestedLoops && containsExit(w->getBody(), kind, nestedLoops))
        return true;
    } else if (auto *f = llvm::dyn_cast<ForStmt>(s)) {
      if (nestedLoops && containsExit(f->getBody(), kind, nestedLoops))
        return true;
    }
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

Sema::Sema(DiagnosticEngine &diags, const SemaOptions &options) : diags(diags), options(options) {}

void Sema::error(llvm::SMRange r, const std::string &msg) { error(r, msg, {}); }

/// How a value of a called function reads in a note: a constant's value, else its type.
static std::string describeValue(const Value *v) {
  Const c = Sema::constOf(v);
  if (auto *i = std::get_if<int64_t>(&c))
    return std::to_string(*i);
  if (auto *b = std::get_if<bool>(&c))
    return *b ? "True" : "False";
  return v->type.str();
}

/// The value `v` (a tensor or a leaf of a tuple) is made from within its function: through
/// `get` and `tuple` ops (`w, b = params`, tuple arithmetic) and through ops that keep a
/// tensor's type and combine it with scalars only (`lr * g`), back to the value it has the
/// type of. `path` is the tuple index still to apply to the returned value.
static const Value *typeSource(const Value *v, std::vector<int64_t> &path) {
  while (v->def) {
    const Operation &op = *v->def;
    if (op.kind == OpKind::Get) {
      path.insert(path.begin(), std::get<int64_t>(op.attrs.at("index")));
      v = op.operands[0];
    } else if (op.kind == OpKind::Tuple && !path.empty()) {
      v = op.operands[size_t(path.front())];
      path.erase(path.begin());
    } else if (op.kind == OpKind::Builtin && path.empty() && v->type.isTensor() &&
               v->type.rank() > 0) {
      const Value *source = nullptr;
      for (const Value *o : op.operands) {
        if (o->type == v->type && !source)
          source = o;
        else if (o->type.isTuple() || (o->type.isTensor() && o->type.rank() > 0))
          return v; // a second tensor shapes it too
      }
      if (!source)
        return v;
      v = source;
    } else {
      return v;
    }
  }
  return v;
}

std::optional<std::pair<llvm::SMRange, std::string>>
Sema::traceArgument(const Value *v, size_t user, const Expr *usedAs,
                    std::set<const Value *> &traced) const {
  const Value *start = v;
  std::vector<int64_t> path;
  // What the library calls the value, when that is not the parameter itself (`w` unpacked from
  // `params`, not `params`).
  auto *name = llvm::dyn_cast_or_null<NameExpr>(usedAs);
  for (size_t k = callChain.size(); k > user && v; --k) {
    const CallFrame &frame = callChain[k - 1];
    v = typeSource(v, path);
    auto param = frame.params.find(v);
    if (param == frame.params.end())
      return std::nullopt; // computed inside the callee
    if (k == callChain.size())
      traced.insert(v); // the innermost callee's parameter
    std::string pname = frame.def->getParams()[param->second]->getName().str();
    if (name && k == callChain.size() && name->getName() == pname)
      name = nullptr;
    const Operand &arg = frame.args[param->second];
    if (k - 1 > user) {
      v = arg.value;
      continue;
    }
    std::string text = "argument";
    if (!path.empty()) {
      text = "element ";
      for (int64_t i : path)
        text += "[" + std::to_string(i) + "]";
      text += " of argument";
    }
    text += " '" + pname + "' of '" + frame.name + "' is " + describeValue(start);
    if (name)
      text += " ('" + name->getName().str() + "' in '" + callChain.back().name + "')";
    return std::make_pair(arg.expr ? arg.expr->getRange() : frame.loc, text);
  }
  return std::nullopt;
}

bool Sema::isMainCode(llvm::SMLoc loc) const {
  return !modules.empty() && modules.front()->ast->hasBuffer(diags.findBuffer(loc));
}

void Sema::error(llvm::SMRange r, const std::string &msg, const std::vector<Operand> &blamed) {
  PendingDiag d{DiagKind::Error, r, msg, {}, {}, {}};
  // The calls that led here, innermost first (callChain[k] is a call of the function whose
  // body holds callChain[k + 1]'s call). An error inside a library function reached from the
  // main file is reported at the innermost call in the main file — the code the user wrote —
  // with notes for the arguments at fault and the library lines in between; an error in the
  // main file stays where it is. Either way "'f' called here" notes lead out to the top level.
  size_t outFrom = callChain.size(); // the callers' notes start below this frame
  if (!isMainCode(r.Start)) {
    size_t user = callChain.size();
    while (user > 0 && !isMainCode(callChain[user - 1].loc.Start))
      --user;
    if (user > 0) {
      --user;
      d.range = callChain[user].loc;
      for (const Operand &o : blamed) {
        if (!o.value)
          continue;
        std::set<const Value *> traced{o.value};
        auto arg = traceArgument(o.value, user, o.expr, traced);
        if (!arg)
          continue;
        d.traced.insert(traced.begin(), traced.end());
        // Both operands of `w @ w` trace back to one argument: one note.
        bool noted = llvm::any_of(d.inside, [&](const auto &note) {
          return note.first.Start == arg->first.Start && note.first.End == arg->first.End &&
                 note.second == arg->second;
        });
        if (!noted)
          d.inside.push_back(std::move(*arg));
      }
      for (size_t k = user; k < callChain.size(); ++k)
        d.inside.push_back({k + 1 < callChain.size() ? callChain[k + 1].loc : r,
                            "inside '" + callChain[k].name + "'"});
      outFrom = user;
    }
  }
  for (size_t k = outFrom; k-- > 0;)
    if (callChain[k].loc.Start != callChain[k].def->getNameRange().Start) // not checkUncalled's
      d.callers.push_back({callChain[k].loc, "'" + callChain[k].name + "' called here"});
  diagStack.back().push_back(std::move(d));
}

void Sema::note(llvm::SMRange r, const std::string &msg) {
  diagStack.back().push_back({DiagKind::Note, r, msg, {}, {}, {}});
}

void Sema::pushDiagBuffer() { diagStack.emplace_back(); }

void Sema::popDiagBuffer(bool keep) {
  std::vector<PendingDiag> top = std::move(diagStack.back());
  diagStack.pop_back();
  if (!keep)
    return;
  if (!diagStack.empty()) {
    for (PendingDiag &d : top)
      diagStack.back().push_back(std::move(d));
    return;
  }
  // The root buffer: report, once per location and message (a def specialised twice reports
  // its errors once).
  bool skipNotes = false;
  const PendingDiag *lastError = nullptr; // its call-chain notes follow its own notes
  auto noteCallers = [&] {
    if (lastError && !skipNotes)
      for (const auto &[range, message] : lastError->callers)
        diags.note(range, message);
  };
  for (PendingDiag &d : top) {
    if (d.kind == DiagKind::Note) {
      if (!skipNotes)
        diags.note(d.range, d.message);
      continue;
    }
    noteCallers();
    lastError = &d;
    auto key = std::make_pair(d.range.Start.getPointer(), d.message);
    skipNotes = !reported.insert(key).second;
    if (skipNotes)
      continue;
    diags.report(d.kind, d.range, d.message);
    for (const auto &[range, message] : d.inside)
      diags.note(range, message);
  }
  noteCallers();
}

bool Sema::tracedByLastError(const Value *v) const {
  for (auto d = diagStack.back().rbegin(); d != diagStack.back().rend(); ++d)
    if (d->kind == DiagKind::Error)
      return d->traced.count(v) != 0;
  return false;
}

void Sema::noteDefinitions(const std::vector<const Expr *> &exprs) {
  std::set<std::string> seen;
  for (const Expr *e : exprs) {
    auto *n = e ? llvm::dyn_cast<NameExpr>(e) : nullptr;
    if (!n || !seen.insert(n->getName().str()).second)
      continue;
    auto it = env.find(n->getName().str());
    if (it != env.end() && it->second.defLoc.Start.isValid() && it->second.value &&
        !tracedByLastError(it->second.value))
      note(it->second.defLoc,
           "'" + n->getName().str() + "' is " + it->second.type.str() + ", defined here");
  }
}

//===----------------------------------------------------------------------===//
// Emission helpers
//===----------------------------------------------------------------------===//

Operation *Sema::emit(OpKind kind, llvm::SMRange loc, std::vector<Value *> operands) {
  auto op = std::make_unique<Operation>(kind, loc);
  op->operands = std::move(operands);
  op->parent = cur;
  Operation *raw = op.get();
  cur->ops.push_back(std::move(op));
  return raw;
}

Value *Sema::undef(const Type &t, llvm::SMRange loc) {
  Operation *op = emit(OpKind::Undef, loc);
  return op->addResult(t);
}

Const Sema::constOf(const Value *v) {
  if (!v || !v->def || !v->def->info || v->def->info->kind != dlm::OpKind::Const)
    return {};
  const AttrValue &a = v->def->attrs.at("value");
  if (auto *i = std::get_if<int64_t>(&a))
    return *i;
  if (auto *d = std::get_if<double>(&a))
    return *d;
  if (auto *b = std::get_if<bool>(&a))
    return *b;
  if (auto *s = std::get_if<std::string>(&a))
    return *s;
  return {};
}

std::optional<int64_t> Sema::intConst(const Operand &o) {
  if (o.type.kind() != Type::Kind::Int)
    return std::nullopt;
  Const c = constOf(o.value);
  if (auto *i = std::get_if<int64_t>(&c))
    return *i;
  return std::nullopt;
}

std::optional<Dim> Sema::dimOfInt(const Value *v) const {
  if (auto it = intDims.find(v); it != intDims.end())
    return it->second;
  if (!v || !v->def || v->def->kind != OpKind::Dim)
    return std::nullopt;
  const Type &t = v->def->operands[0]->type;
  int64_t axis = std::get<int64_t>(v->def->attrs.at("axis"));
  return t.shape()[size_t(axis)];
}

Operand Sema::constant(Const c, llvm::SMRange loc) {
  Attrs attrs;
  Type t;
  if (auto *i = std::get_if<int64_t>(&c)) {
    attrs["value"] = *i;
    t = Type::intTy();
  } else if (auto *d = std::get_if<double>(&c)) {
    attrs["value"] = *d;
    t = Type::floatTy();
  } else if (auto *b = std::get_if<bool>(&c)) {
    attrs["value"] = *b;
    t = Type::boolTy();
  } else {
    attrs["value"] = std::get<std::string>(c);
    t = Type::strTy();
  }
  Operation *op = emit(OpKind::Builtin, loc);
  op->info = &opInfo(dlm::OpKind::Const);
  op->attrs = std::move(attrs);
  Operand o;
  o.value = op->addResult(t);
  o.type = t;
  return o;
}

Operand Sema::emitOp(const std::string &opName, std::vector<Operand> operands, Attrs attrs,
                     llvm::SMRange loc, std::vector<Value *> extra) {
  const OpInfo *info = registry.lookup(opName);
  assert(info && "sema emits registry ops only");
  return emitOp(info->kind, std::move(operands), std::move(attrs), loc, std::move(extra));
}

Operand Sema::emitOp(dlm::OpKind kind, std::vector<Operand> operands, Attrs attrs,
                     llvm::SMRange loc, std::vector<Value *> extra) {
  const OpInfo *info = &opInfo(kind);
  std::vector<Type> types;
  for (const Operand &o : operands) {
    if (o.dtype) {
      error(o.expr ? o.expr->getRange() : loc,
            "'" + std::string(dtypeName(*o.dtype)) + "' is a dtype, not a value");
      return poison();
    }
    if (o.callee || o.module) {
      error(o.expr ? o.expr->getRange() : loc,
            o.module ? "module '" + o.module->name + "' is not a value"
                     : "a function cannot be used as a value here");
      return poison();
    }
    if (o.type.containsError())
      return poison();
    types.push_back(o.type);
  }
  for (Value *v : extra)
    types.push_back(v->type);
  std::string why;
  int culprit = -1;
  Type result = registry.infer(*info, types, attrs, program->dims, why, culprit);
  if (!why.empty()) {
    bool atOperand = culprit >= 0 && size_t(culprit) < operands.size() && operands[culprit].expr;
    error(atOperand ? operands[culprit].expr->getRange() : loc, why,
          culprit >= 0 && size_t(culprit) < operands.size()
              ? std::vector<Operand>{operands[culprit]}
              : operands);
    // Where the operands of a failed combination (a + b, a @ b) came from.
    if (culprit < 0 && operands.size() >= 2) {
      std::vector<const Expr *> exprs;
      for (const Operand &o : operands)
        exprs.push_back(o.expr);
      noteDefinitions(exprs);
    }
    return poison();
  }
  std::vector<Value *> values;
  for (const Operand &o : operands)
    values.push_back(o.value);
  values.insert(values.end(), extra.begin(), extra.end());
  Operation *op = emit(OpKind::Builtin, loc, std::move(values));
  op->info = info;
  op->attrs = std::move(attrs);
  Operand out;
  out.type = result;
  if (!result.isError() && result.kind() != Type::Kind::None)
    out.value = op->addResult(result);
  else if (result.kind() == Type::Kind::None)
    out.type = Type::none();
  return out;
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

static std::vector<std::string> stdlibModules(const std::string &dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".dlm")
      out.push_back(llvm::sys::path::stem(it->path()).str());
  return out;
}

std::string Sema::importingFile(const ImportStmt &imp, const ModuleInfo &importer) const {
  if (&importer != modules.front().get())
    return importer.path;
  // The main file may come in parts (the REPL's session and input, or a file it loads): the
  // part holding the import is the file it is relative to.
  std::string file = diags.getBufferName(imp.getBeginLoc()).str();
  llvm::SmallString<256> real;
  return llvm::sys::fs::real_path(file, real) ? file : std::string(real);
}

ModuleInfo *Sema::loadModule(const ImportStmt &imp, ModuleInfo &importer) {
  llvm::SmallString<256> path;
  if (imp.isPath()) {
    path = llvm::sys::path::parent_path(importingFile(imp, importer));
    llvm::sys::path::append(path, imp.getName() + ".dlm");
  } else {
    path = options.stdlibDir;
    llvm::sys::path::append(path, imp.getName() + ".dlm");
  }
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real) || !llvm::sys::fs::is_regular_file(real)) {
    std::string msg =
        "cannot find module '" + imp.getName().str() + "' (looked for " + std::string(path) + ")";
    if (!imp.isPath()) {
      std::string guess = closestName(imp.getName(), stdlibModules(options.stdlibDir));
      if (!guess.empty())
        msg += "; did you mean '" + guess + "'?";
    }
    error(imp.getRange(), msg);
    return nullptr;
  }
  std::string key(real);
  for (size_t i = 0; i < loading.size(); ++i) {
    if (loading[i]->path != key)
      continue;
    std::string chain;
    for (size_t j = i; j < loading.size(); ++j)
      chain += llvm::sys::path::filename(loading[j]->path).str() + " -> ";
    chain += llvm::sys::path::filename(key).str();
    error(imp.getRange(), "import cycle: " + chain);
    return nullptr;
  }
  if (auto it = modulesByPath.find(key); it != modulesByPath.end())
    return it->second;
  if (!options.parseFile) {
    error(imp.getRange(), "imports are not available in this build");
    return nullptr;
  }
  std::unique_ptr<Module> parsed = options.parseFile(key, imp.getRange());
  if (!parsed)
    return nullptr;
  auto info = std::make_unique<ModuleInfo>();
  info->ast = parsed.get();
  info->owned = std::move(parsed);
  info->name = imp.getBindingName().str();
  info->path = key;
  ModuleInfo *raw = info.get();
  modules.push_back(std::move(info));
  modulesByPath[key] = raw;
  loading.push_back(raw);
  collectModule(*raw);
  loading.pop_back();
  return raw;
}

void Sema::collectModule(ModuleInfo &m) {
  for (const Stmt *s : m.ast->getBody()) {
    if (auto *def = llvm::dyn_cast<FunctionDefStmt>(s)) {
      std::string n = def->getName().str();
      if (auto it = m.functions.find(n); it != m.functions.end()) {
        error(def->getNameRange(), "redefinition of '" + n + "'");
        note(it->second->getNameRange(), "'" + n + "' was first defined here");
        continue;
      }
      // A def may shadow a built-in within its module (docs/language.md "Names").
      m.functions[n] = def;
      std::string q = m.name.empty() ? n : m.name + "." + n;
      m.callables[n] = std::make_shared<FnCallable>(&m, def, q);
    } else if (auto *imp = llvm::dyn_cast<ImportStmt>(s)) {
      ModuleInfo *loaded = loadModule(*imp, m);
      m.imports[imp->getBindingName().str()] = loaded;
    } else if (!m.name.empty() && !llvm::isa<PassStmt>(s)) {
      error(s->getRange(), "unsupported construct: statements at the top level of module '" +
                               m.name + "' (a module holds imports and defs only)");
    }
  }
}

//===----------------------------------------------------------------------===//
// Annotations
//===----------------------------------------------------------------------===//

std::string Sema::annotationStr(const TypeExpr *ann) {
  llvm::SMRange r = ann->getRange();
  return std::string(r.Start.getPointer(), r.End.getPointer());
}

bool Sema::checkAnnotation(const TypeExpr *ann, const Type &actual,
                           std::map<std::string, Dim> &syms, std::string &why) {
  if (actual.isError())
    return true;
  if (auto *s = llvm::dyn_cast<ScalarTypeExpr>(ann)) {
    static const Type::Kind kinds[] = {Type::Kind::Int, Type::Kind::Float, Type::Kind::Bool,
                                       Type::Kind::Str};
    if (actual.kind() == kinds[size_t(s->getScalarKind())])
      return true;
    why = "expected " + scalarTypeName(s->getScalarKind()).str() + ", found " + actual.str();
    return false;
  }
  if (auto *t = llvm::dyn_cast<TensorTypeExpr>(ann)) {
    if (!actual.isTensor()) {
      why = "expected a Tensor, found " + actual.str();
      return false;
    }
    if (t->getDType() && *t->getDType() != actual.dtype()) {
      why = "expected dtype " + std::string(dtypeName(*t->getDType())) + ", found " + actual.str();
      return false;
    }
    if (!t->hasShape())
      return true;
    if (t->getDims().size() != actual.rank()) {
      why = "expected rank " + std::to_string(t->getDims().size()) + ", found " + actual.str();
      return false;
    }
    for (size_t i = 0; i < actual.rank(); ++i) {
      const DimExpr &d = t->getDims()[i];
      const Dim &a = actual.shape()[i];
      if (!d.isSymbolic()) {
        if (a.isStatic() && a.size() != *d.size) {
          why = "dim " + std::to_string(i) + " is " + a.str() + ", expected " +
                std::to_string(*d.size) + " (found " + actual.str() + ")";
          return false;
        }
        continue;
      }
      auto [it, inserted] = syms.emplace(d.symbol, a);
      if (!inserted && it->second.isStatic() && a.isStatic() && it->second != a) {
        why = d.symbol + " is " + it->second.str() + " elsewhere in the signature but " + a.str() +
              " in " + actual.str();
        return false;
      }
    }
    return true;
  }
  auto *tup = llvm::cast<TupleTypeExpr>(ann);
  if (!actual.isTuple() || actual.elements().size() != tup->getElements().size()) {
    why = "expected a tuple of " + std::to_string(tup->getElements().size()) + " elements, found " +
          actual.str();
    return false;
  }
  for (size_t i = 0; i < actual.elements().size(); ++i)
    if (!checkAnnotation(tup->getElements()[i], actual.elements()[i], syms, why))
      return false;
  return true;
}

} // namespace sema

std::optional<Type> annotatedType(const TypeExpr *ann) {
  if (auto *s = llvm::dyn_cast<ScalarTypeExpr>(ann)) {
    switch (s->getScalarKind()) {
    case ScalarTypeKind::Int:
      return Type::intTy();
    case ScalarTypeKind::Float:
      return Type::floatTy();
    case ScalarTypeKind::Bool:
      return Type::boolTy();
    case ScalarTypeKind::Str:
      return Type::strTy();
    }
  }
  if (auto *t = llvm::dyn_cast<TensorTypeExpr>(ann)) {
    if (!t->hasShape())
      return std::nullopt;
    Shape shape;
    for (const DimExpr &d : t->getDims())
      shape.push_back(d.isSymbolic() ? Dim::symbol(d.symbol) : Dim::fixed(*d.size));
    return Type::tensor(t->getDType().value_or(DType::F32), shape);
  }
  std::vector<Type> elems;
  for (const TypeExpr *e : llvm::cast<TupleTypeExpr>(ann)->getElements()) {
    auto t = annotatedType(e);
    if (!t)
      return std::nullopt;
    elems.push_back(*t);
  }
  return Type::tuple(elems);
}

namespace sema {

void Sema::specialiseEntry(const SemaOptions::Entry &entry) {
  ModuleInfo *mainInfo = modules.front().get();
  auto fn = mainInfo->callables.find(entry.def);
  if (fn == mainInfo->callables.end()) {
    error({}, "no def named '" + entry.def + "' in the main file");
    return;
  }
  std::vector<Operand> args(entry.params.size());
  for (size_t i = 0; i < args.size(); ++i)
    args[i].type = entry.params[i];
  program->entry = specialise(fn->second, args, std::vector<bool>(args.size(), true),
                              fn->second->def->getNameRange());
}

void Sema::checkUncalled() {
  // A def nobody calls is still checked. Parameters whose annotations fix a type get it; the
  // others are poisoned, which silences everything that depends on them but still reports the
  // rest (undefined names, misused built-ins, shapes of what the body creates itself). Only a
  // def checked at fully known types stays in the program.
  ModuleInfo *mainInfo = modules.front().get();
  for (auto &[n, def] : mainInfo->functions) {
    if (specialisedDefs.count(def))
      continue;
    std::vector<Operand> args;
    bool complete = true;
    for (const Param *p : def->getParams()) {
      std::optional<Type> t = p->getAnnotation() ? annotatedType(p->getAnnotation()) : std::nullopt;
      complete &= t.has_value();
      Operand o;
      o.type = t.value_or(Type::error());
      args.push_back(o);
    }
    Function *f = specialise(mainInfo->callables[n], args, std::vector<bool>(args.size(), true),
                             def->getNameRange());
    if (complete || !f)
      continue;
    auto &fns = program->functions;
    fns.erase(std::remove_if(fns.begin(), fns.end(), [&](const auto &g) { return g.get() == f; }),
              fns.end());
  }
}

/// Collects every value some op uses, in `b` and the regions below it.
static void collectUses(const Block &b, llvm::DenseSet<const Value *> &used) {
  for (const auto &op : b.ops) {
    for (const Value *v : op->operands)
      used.insert(v);
    for (const auto &r : op->regions)
      collectUses(*r->block, used);
  }
}

static bool eraseUnused(Block &b, const llvm::DenseSet<const Value *> &used) {
  bool changed = false;
  auto dead = [&](const std::unique_ptr<Operation> &op) {
    bool pure = op->kind == OpKind::Tuple || op->kind == OpKind::Get || op->kind == OpKind::Dim ||
                op->kind == OpKind::Undef || (op->info && op->info->kind == dlm::OpKind::Const);
    return pure && std::none_of(op->results.begin(), op->results.end(),
                                [&](const auto &r) { return used.contains(r.get()); });
  };
  size_t before = b.ops.size();
  b.ops.erase(std::remove_if(b.ops.begin(), b.ops.end(), dead), b.ops.end());
  changed = b.ops.size() != before;
  for (auto &op : b.ops)
    for (auto &r : op->regions)
      changed |= eraseUnused(*r->block, used);
  return changed;
}

void removeUnusedConstants(ssa::Program &program) {
  // Literals that only became attributes (axes, shapes) and tuples that were only unpacked
  // leave dead constants and tuple ops behind; removing them keeps the printed SSA readable.
  for (auto &f : program.functions) {
    for (bool changed = true; changed;) {
      llvm::DenseSet<const Value *> used;
      collectUses(f->entry(), used);
      changed = eraseUnused(f->entry(), used);
    }
  }
}

} // namespace sema

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

std::string findStdlibDir(const char *argv0) {
  if (const char *e = std::getenv("DLM_STDLIB"); e && *e)
    return e;
  {
    std::string exe = llvm::sys::fs::getMainExecutable(argv0 ? argv0 : "", (void *)&findStdlibDir);
    llvm::SmallString<256> p(llvm::sys::path::parent_path(exe));
    llvm::sys::path::append(p, "..", "..", "stdlib");
    if (llvm::sys::fs::is_directory(p))
      return std::string(p);
  }
#ifdef DLM_SOURCE_DIR
  return std::string(DLM_SOURCE_DIR) + "/stdlib";
#else
  return "stdlib";
#endif
}

std::vector<std::string> builtinFunctionNames() { return sema::Sema::builtinNames(); }

std::unique_ptr<ssa::Program> analyze(Module &module, DiagnosticEngine &diags,
                                      const SemaOptions &options) {
  sema::Sema s(diags, options);
  return s.run(module);
}

namespace sema {

void Sema::recordTopLevel() {
  for (const auto &[name, binding] : env) {
    if (isHiddenName(name))
      continue;
    ssa::TopLevelName top{name, ssa::TopLevelName::Kind::Value, binding.type, binding.defLoc};
    if (binding.module)
      top.kind = ssa::TopLevelName::Kind::Module;
    else if (binding.dtype)
      top.kind = ssa::TopLevelName::Kind::DType;
    else if (binding.type.isFunction())
      top.kind = ssa::TopLevelName::Kind::Function;
    program->topLevel.push_back(std::move(top));
  }
}

std::unique_ptr<ssa::Program> Sema::run(Module &mainModule) {
  program = std::make_unique<ssa::Program>();
  unsigned errorsBefore = diags.getNumErrors();
  pushDiagBuffer();
  auto info = std::make_unique<ModuleInfo>();
  info->ast = &mainModule;
  info->path = diags.getBufferName(mainModule.getBeginLoc()).str();
  if (info->path.empty())
    info->path = mainModule.getName().str();
  llvm::SmallString<256> real;
  if (!llvm::sys::fs::real_path(info->path, real))
    info->path = std::string(real);
  ModuleInfo *mainInfo = info.get();
  modules.push_back(std::move(info));
  modulesByPath[mainInfo->path] = mainInfo;
  loading.push_back(mainInfo);
  collectModule(*mainInfo);
  loading.pop_back();

  collectAssigned(mainModule.getBody(), mainNames);
  Function &mainFn = program->addFunction("main", mainModule.getRange());
  cur = &mainFn.entry();
  module = mainInfo;
  function = &mainFn;
  analyseBody(mainModule.getBody());
  recordTopLevel();
  emit(OpKind::Return, mainModule.getRange());
  if (options.entry)
    specialiseEntry(*options.entry);
  checkUncalled();
  popDiagBuffer(true);
  removeUnusedConstants(*program);
  if (diags.getNumErrors() != errorsBefore)
    return nullptr;
  std::string problem = ssa::verify(*program);
  if (!problem.empty()) {
    diags.error("internal error: invalid SSA: " + problem);
    return nullptr;
  }
  return std::move(program);
}

} // namespace sema
} // namespace dlm
