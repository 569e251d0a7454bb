//===- compiler/sema/Sema.cpp - Modules, functions, statements, control flow ===//
//
// The driver of semantic analysis:
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

static bool isFlag(const std::string &n) { return n == "$ret" || n == "$brk" || n == "$cont"; }

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

Sema::Sema(DiagnosticEngine &diags, const SemaOptions &options)
    : diags(diags), options(options) {}

void Sema::error(llvm::SMRange r, const std::string &msg) {
  diagStack.back().push_back({DiagKind::Error, r, msg});
}

void Sema::note(llvm::SMRange r, const std::string &msg) {
  diagStack.back().push_back({DiagKind::Note, r, msg});
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
  for (PendingDiag &d : top) {
    if (d.kind == DiagKind::Note) {
      if (!skipNotes)
        diags.note(d.range, d.message);
      continue;
    }
    auto key = std::make_pair(d.range.Start.getPointer(), d.message);
    skipNotes = !reported.insert(key).second;
    if (!skipNotes)
      diags.report(d.kind, d.range, d.message);
  }
}

void Sema::noteDefinitions(const std::vector<const Expr *> &exprs) {
  std::set<std::string> seen;
  for (const Expr *e : exprs) {
    auto *n = e ? llvm::dyn_cast<NameExpr>(e) : nullptr;
    if (!n || !seen.insert(n->getName().str()).second)
      continue;
    auto it = env.find(n->getName().str());
    if (it != env.end() && it->second.defLoc.Start.isValid() && it->second.value)
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
  if (!v || !v->def || !v->def->info || v->def->info->name != "const")
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
  op->info = registry.lookup("const");
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
    error(atOperand ? operands[culprit].expr->getRange() : loc, why);
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

ModuleInfo *Sema::loadModule(const ImportStmt &imp, ModuleInfo &importer) {
  llvm::SmallString<256> path;
  if (imp.isPath()) {
    path = llvm::sys::path::parent_path(importer.path);
    llvm::sys::path::append(path, imp.getName() + ".dlm");
  } else {
    path = options.stdlibDir;
    llvm::sys::path::append(path, imp.getName() + ".dlm");
  }
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real) || !llvm::sys::fs::is_regular_file(real)) {
    std::string msg = "cannot find module '" + imp.getName().str() + "' (looked for " +
                      std::string(path) + ")";
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
    why = "expected a tuple of " + std::to_string(tup->getElements().size()) +
          " elements, found " + actual.str();
    return false;
  }
  for (size_t i = 0; i < actual.elements().size(); ++i)
    if (!checkAnnotation(tup->getElements()[i], actual.elements()[i], syms, why))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

bool isStaticArg(const Operand &o) {
  if (o.callee || o.module || o.dtype || o.type.kind() == Type::Kind::None)
    return true;
  Const c = Sema::constOf(o.value);
  return std::holds_alternative<int64_t>(c) || std::holds_alternative<bool>(c) ||
         std::holds_alternative<std::string>(c);
}

/// What distinguishes one specialisation from another for this argument: its type, the value
/// of a static argument (int, bool and str constants, functions), the symbol an int stands for.
std::string Sema::argKey(const Operand &o) const {
  if (o.callee)
    return "fn@" + std::to_string(reinterpret_cast<uintptr_t>(o.callee.get()));
  if (o.module)
    return "module " + o.module->name;
  if (o.dtype)
    return "dtype " + std::string(dtypeName(*o.dtype));
  Const c = constOf(o.value);
  if (auto *i = std::get_if<int64_t>(&c))
    return "int=" + std::to_string(*i);
  if (auto *b = std::get_if<bool>(&c))
    return *b ? "bool=1" : "bool=0";
  if (auto *str = std::get_if<std::string>(&c))
    return "str=" + *str;
  if (auto d = dimOfInt(o.value))
    return "int~" + d->str();
  return o.type.str();
}

/// Saves the state of the function being analysed and sets up `f`; restores on destruction
/// (a nested specialisation analyses another function in the middle of this one).
struct FunctionScope {
  Sema &s;
  Env env;
  Block *cur;
  ModuleInfo *module;
  Function *function;
  int loopDepth;
  bool inFunction;
  std::map<std::string, std::string> partialNames;

  FunctionScope(Sema &s, Function &f, ModuleInfo *m)
      : s(s), env(std::move(s.env)), cur(s.cur), module(s.module), function(s.function),
        loopDepth(s.loopDepth), inFunction(s.inFunction), partialNames(std::move(s.partialNames)) {
    s.env.clear();
    s.partialNames.clear();
    s.cur = &f.entry();
    s.module = m;
    s.function = &f;
    s.loopDepth = 0;
    s.inFunction = true;
  }
  ~FunctionScope() {
    s.env = std::move(env);
    s.cur = cur;
    s.module = module;
    s.function = function;
    s.loopDepth = loopDepth;
    s.inFunction = inFunction;
    s.partialNames = std::move(partialNames);
  }
};

Function *Sema::specialise(std::shared_ptr<const FnCallable> fn, const std::vector<Operand> &args,
                           const std::vector<bool> &given, llvm::SMRange callLoc) {
  const FunctionDefStmt *def = fn->def;
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(def));
  for (size_t i = 0; i < args.size(); ++i)
    key += "|" + (given[i] ? argKey(args[i]) : std::string("default"));
  if (auto it = specialisations.find(key); it != specialisations.end())
    return it->second;
  specialisedDefs.insert(def);
  if (std::find(active.begin(), active.end(), def) != active.end()) {
    error(callLoc, "recursive call to '" + fn->qualifiedName +
                       "' is not supported (dlm specialises every call at compile time)");
    note(def->getNameRange(), "'" + fn->qualifiedName + "' is defined here");
    return nullptr;
  }
  unsigned n = nameCounts[fn->qualifiedName]++;
  std::string fname = n == 0 ? fn->qualifiedName : fn->qualifiedName + "." + std::to_string(n);
  Function &f = program->addFunction(fname, def->getNameRange());

  FunctionScope scope(*this, f, fn->module);
  active.push_back(def);

  std::map<std::string, Dim> syms;
  bool badArgument = false;
  const auto &params = def->getParams();
  for (size_t i = 0; i < params.size(); ++i) {
    const Param *p = params[i];
    std::string pname = p->getName().str();
    Operand arg;
    if (given[i]) {
      arg = args[i];
    } else {
      arg = expr(*p->getDefault());
    }
    Binding b;
    b.type = arg.type;
    b.defLoc = p->getRange();
    b.dtype = arg.dtype;
    b.module = arg.module;
    if (arg.callee)
      b.type = Type::function(arg.callee);
    if (given[i] && !isStaticArg(arg) && !arg.type.containsError()) {
      b.value = f.entry().addArg(arg.type, p->getRange());
      b.value->name = pname;
      f.paramNames.push_back(pname);
      if (auto d = dimOfInt(arg.value))
        intDims[b.value] = *d;
    } else if (given[i] && arg.value && !arg.callee) {
      // A static argument: the callee sees the constant itself.
      b.value = constValue(constOf(arg.value), p->getRange());
    } else {
      b.value = arg.value;
    }
    std::string why;
    if (p->getAnnotation() && !checkAnnotation(p->getAnnotation(), arg.type, syms, why)) {
      badArgument = true;
      error(given[i] && arg.expr ? arg.expr->getRange() : callLoc,
            "argument '" + pname + "' of '" + fn->qualifiedName + "' does not match its annotation " +
                annotationStr(p->getAnnotation()) + ": " + why);
      note(p->getAnnotation()->getRange(), "'" + pname + "' is annotated here");
    }
    env[pname] = b;
  }

  // With an argument that contradicts its annotation the body would only repeat the error.
  if (badArgument) {
    f.resultType = Type::error();
    emit(OpKind::Return, def->getNameRange());
    active.pop_back();
    specialisations[key] = &f;
    return &f;
  }
  analyseBody(def->getBody());

  auto ret = env.find("$ret");
  Type result = Type::none();
  Value *retValue = nullptr;
  llvm::SMRange retLoc = def->getNameRange();
  if (ret != env.end()) {
    Binding &rv = env["$retval"];
    bool sure = ret->second.flag == 1;
    if (!sure && rv.type.kind() != Type::Kind::None && !rv.type.isError()) {
      error(def->getNameRange(),
            "'" + fn->qualifiedName + "' does not return a value on every path");
      note(rv.defLoc, "it returns " + rv.type.str() + " here");
    }
    result = rv.type;
    retValue = rv.value;
    retLoc = rv.defLoc;
  }
  if (def->getReturnAnnotation()) {
    std::string why;
    if (!checkAnnotation(def->getReturnAnnotation(), result, syms, why)) {
      error(retLoc, "'" + fn->qualifiedName + "' returns " + result.str() +
                        ", which does not match its annotation " +
                        annotationStr(def->getReturnAnnotation()) + ": " + why);
      note(def->getReturnAnnotation()->getRange(), "return type annotated here");
    }
  }
  f.resultType = result.isError() ? Type::error() : result;
  emit(OpKind::Return, retLoc, retValue ? std::vector<Value *>{retValue} : std::vector<Value *>{});
  returnLocs[&f] = retLoc;

  active.pop_back();
  specialisations[key] = &f;
  return &f;
}

/// Binds a call's arguments to `def`'s parameters; reports arity and keyword errors.
static bool bindToParams(Sema &s, const FunctionDefStmt &def, const std::string &name,
                         CallArgs &args, std::vector<Operand> &out, std::vector<bool> &given) {
  const auto &params = def.getParams();
  out.assign(params.size(), Operand());
  given.assign(params.size(), false);
  if (args.positional.size() > params.size()) {
    s.error(args.loc, "'" + name + "' takes " + std::to_string(params.size()) + " argument" +
                          (params.size() == 1 ? "" : "s") + ", " +
                          std::to_string(args.positional.size()) + " given");
    s.note(def.getNameRange(), "'" + name + "' is defined here");
    return false;
  }
  for (size_t i = 0; i < args.positional.size(); ++i) {
    out[i] = args.positional[i];
    given[i] = true;
  }
  bool ok = true;
  for (auto &[kw, val] : args.keywords) {
    size_t i = 0;
    while (i < params.size() && params[i]->getName() != kw->name)
      ++i;
    if (i == params.size()) {
      std::vector<std::string> names;
      for (const Param *p : params)
        names.push_back(p->getName().str());
      std::string guess = closestName(kw->name, names);
      s.error(kw->nameRange, "'" + name + "' has no parameter named '" + kw->name + "'" +
                                 (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
      ok = false;
      continue;
    }
    if (given[i]) {
      s.error(kw->nameRange, "argument '" + kw->name + "' of '" + name + "' is given twice");
      ok = false;
      continue;
    }
    out[i] = val;
    given[i] = true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (!given[i] && !params[i]->getDefault()) {
      s.error(args.loc, "missing argument '" + params[i]->getName().str() + "' in call to '" +
                            name + "'");
      s.note(def.getNameRange(), "'" + name + "' is defined here");
      ok = false;
    }
  }
  for (size_t i = 0; i < params.size(); ++i)
    if (given[i] && out[i].isError())
      ok = false; // poisoned argument: already reported
  return ok;
}

/// The SSA operands of a call: the given arguments that became block arguments.
static std::vector<Value *> runtimeOperands(const std::vector<Operand> &args,
                                            const std::vector<bool> &given) {
  std::vector<Value *> out;
  for (size_t i = 0; i < args.size(); ++i)
    if (given[i] && !isStaticArg(args[i]))
      out.push_back(args[i].value);
  return out;
}

Operand Sema::callUser(std::shared_ptr<const FnCallable> fn, CallArgs &args) {
  std::vector<Operand> bound;
  std::vector<bool> given;
  if (!bindToParams(*this, *fn->def, fn->qualifiedName, args, bound, given))
    return poison();
  Function *f = specialise(fn, bound, given, args.loc);
  if (!f || f->resultType.isError())
    return poison();
  Operation *op = emit(OpKind::Call, args.loc, runtimeOperands(bound, given));
  op->callee = f;
  Operand out;
  out.type = f->resultType;
  if (f->resultType.kind() != Type::Kind::None)
    out.value = op->addResult(f->resultType);
  return out;
}

Function *Sema::materialise(const std::shared_ptr<const Callable> &c, CallArgs &args) {
  if (auto fn = std::dynamic_pointer_cast<const FnCallable>(c)) {
    std::vector<Operand> bound;
    std::vector<bool> given;
    if (!bindToParams(*this, *fn->def, fn->qualifiedName, args, bound, given))
      return nullptr;
    // Materialised functions take only their given arguments, in parameter order.
    Function *f = specialise(fn, bound, given, args.loc);
    if (f) {
      args.positional.clear();
      for (size_t i = 0; i < bound.size(); ++i)
        if (given[i])
          args.positional.push_back(bound[i]);
      args.keywords.clear();
    }
    return f;
  }
  // Anything else (a built-in, grad(f), checkpoint(f)) becomes a small function whose body
  // performs the call on its parameters.
  std::string fname = c->describe();
  if (fname.rfind("fn ", 0) == 0)
    fname = fname.substr(3);
  unsigned n = nameCounts[fname]++;
  if (n)
    fname += "." + std::to_string(n);
  Function &f = program->addFunction(fname, args.loc);
  Operand r;
  {
  FunctionScope scope(*this, f, module);
  CallArgs inner = args;
  auto param = [&](Operand &o, const std::string &pname, llvm::SMRange loc) {
    if (!o.value || o.callee)
      return;
    if (isStaticArg(o)) {
      o.value = constValue(constOf(o.value), loc);
      return;
    }
    o.value = f.entry().addArg(o.type, loc);
    f.paramNames.push_back(pname);
  };
  for (Operand &o : inner.positional)
    param(o, "arg" + std::to_string(f.paramNames.size()), o.expr ? o.expr->getRange() : args.loc);
  for (auto &[kw, o] : inner.keywords)
    param(o, kw->name, kw->nameRange);
  if (auto ck = std::dynamic_pointer_cast<const CheckpointCallable>(c)) {
    f.isCheckpointed = true;
    r = callCallable(ck->inner, inner);
  } else {
    r = callCallable(c, inner);
  }
  f.resultType = r.type;
  emit(OpKind::Return, args.loc, r.value ? std::vector<Value *>{r.value} : std::vector<Value *>{});
  returnLocs[&f] = args.loc;
  }
  if (r.isError())
    return nullptr;
  // The call passes its runtime arguments in order (positional, then keywords).
  std::vector<Operand> flat = args.positional;
  for (auto &[kw, o] : args.keywords)
    flat.push_back(o);
  args.positional = flat;
  args.keywords.clear();
  return &f;
}

Operand Sema::callCallable(const std::shared_ptr<const Callable> &c, CallArgs &args) {
  if (auto fn = std::dynamic_pointer_cast<const FnCallable>(c))
    return callUser(fn, args);
  if (auto b = std::dynamic_pointer_cast<const BuiltinCallable>(c))
    return callBuiltin(b->name, args);
  if (auto g = std::dynamic_pointer_cast<const GradCallable>(c))
    return callGrad(*g, args);
  Function *f = materialise(c, args);
  if (!f)
    return poison();
  std::vector<Operand> none;
  std::vector<bool> given(args.positional.size(), true);
  Operation *op = emit(OpKind::Call, args.loc, runtimeOperands(args.positional, given));
  op->callee = f;
  Operand out;
  out.type = f->resultType;
  if (f->resultType.kind() != Type::Kind::None)
    out.value = op->addResult(f->resultType);
  return out;
}

/// True for a float scalar or a 0-d float tensor.
static bool isScalarFloat(const Type &t) {
  return t.kind() == Type::Kind::Float || (t.isTensor() && t.rank() == 0 && isFloat(t.dtype()));
}

/// True when every leaf of `t` can carry a gradient (float tensors and floats).
static bool isDifferentiable(const Type &t) {
  if (t.isTuple())
    return std::all_of(t.elements().begin(), t.elements().end(), isDifferentiable);
  return t.kind() == Type::Kind::Float || (t.isTensor() && isFloat(t.dtype()));
}

Operand Sema::callGrad(const GradCallable &g, CallArgs &args) {
  std::string fname = g.inner->describe();
  if (fname.rfind("fn ", 0) == 0)
    fname = fname.substr(3);
  Function *f = materialise(g.inner, args);
  if (!f || f->resultType.isError())
    return poison();
  if (!isScalarFloat(f->resultType)) {
    error(returnLocs[f], "grad: '" + fname + "' must return a scalar, but it returns " +
                             f->resultType.str());
    note(g.loc, "differentiated here");
    return poison();
  }
  // argnums index the call's arguments; the Grad op indexes the callee's block arguments.
  std::vector<int64_t> blockIndex;
  int64_t runtimeIdx = 0;
  for (const Operand &o : args.positional)
    blockIndex.push_back(isStaticArg(o) ? -1 : runtimeIdx++);
  std::vector<Type> grads;
  std::vector<int64_t> opArgnums;
  for (int64_t a : g.argnums) {
    if (a < 0 || size_t(a) >= args.positional.size()) {
      error(g.loc, "argnums " + std::to_string(a) + " is out of range: '" + fname + "' is called with " +
                       std::to_string(args.positional.size()) + " arguments");
      return poison();
    }
    const Operand &arg = args.positional[size_t(a)];
    if (blockIndex[size_t(a)] < 0 || !isDifferentiable(arg.type)) {
      error(arg.expr ? arg.expr->getRange() : args.loc,
            "grad: argument " + std::to_string(a) + " of '" + fname + "' is " + arg.type.str() +
                ", which cannot be differentiated (only float tensors, floats and tuples of them)");
      note(g.loc, "differentiated here");
      return poison();
    }
    grads.push_back(arg.type);
    opArgnums.push_back(blockIndex[size_t(a)]);
  }
  Type gradType = g.argnumsIsTuple ? Type::tuple(grads) : grads[0];
  Type result = g.withValue ? Type::tuple({f->resultType, gradType}) : gradType;
  std::vector<bool> given(args.positional.size(), true);
  Operation *op = emit(OpKind::Grad, args.loc, runtimeOperands(args.positional, given));
  op->callee = f;
  op->attrs["argnums"] = opArgnums;
  op->attrs["with_value"] = g.withValue;
  Operand out;
  out.type = result;
  out.value = op->addResult(result);
  return out;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

bool Sema::exitCertain() const {
  for (const char *f : {"$ret", "$brk", "$cont"}) {
    auto it = env.find(f);
    if (it != env.end() && it->second.flag == 1)
      return true;
  }
  return false;
}

bool Sema::exitPossible() const {
  for (const char *f : {"$ret", "$brk", "$cont"}) {
    auto it = env.find(f);
    if (it != env.end() && (it->second.value || it->second.flag == 1))
      return true;
  }
  return false;
}

Value *Sema::notExitFlags(llvm::SMRange loc) {
  Operand any;
  for (const char *f : {"$ret", "$brk", "$cont"}) {
    auto it = env.find(f);
    if (it == env.end() || !it->second.value)
      continue;
    Operand o;
    o.value = it->second.value;
    o.type = it->second.type;
    any = any.value ? emitOp("logical_or", {any, o}, {}, loc) : o;
  }
  return emitOp("logical_not", {any}, {}, loc).value;
}

void Sema::knowNotExited() {
  for (const char *f : {"$ret", "$brk", "$cont"}) {
    auto it = env.find(f);
    if (it == env.end())
      continue;
    it->second.value = nullptr;
    it->second.flag = 0;
  }
}

void Sema::knowExited() {
  // On the skipping side of a guard some flag is set; when only one flag can be, it is that one
  // (so a function whose loops may return and that returns after them returns on every path).
  const char *only = nullptr;
  for (const char *f : {"$ret", "$brk", "$cont"}) {
    auto it = env.find(f);
    if (it == env.end() || (!it->second.value && it->second.flag != 1))
      continue;
    if (only)
      return;
    only = f;
  }
  if (!only)
    return;
  Binding &b = env[only];
  b.value = nullptr;
  b.flag = 1;
}

void Sema::analyseBody(const Body &stmts, size_t from) {
  for (size_t i = from; i < stmts.size(); ++i) {
    if (exitCertain())
      return; // the rest is unreachable
    analyseStmt(*stmts[i]);
    if (exitCertain() || i + 1 == stmts.size() || !exitPossible())
      continue;
    // Some path has left: the rest runs only on the paths that have not.
    llvm::SMRange loc = stmts[i + 1]->getRange();
    Value *go = notExitFlags(loc);
    emitIf(go, loc, [&] {
      knowNotExited();
      analyseBody(stmts, i + 1);
    }, [&] { knowExited(); });
    return;
  }
}

bool Sema::checkCondition(const Operand &c, const char *what) {
  if (c.isError())
    return false;
  const Type &t = c.type;
  if (t.kind() == Type::Kind::Bool || (t.isTensor() && t.dtype() == DType::Bool && t.rank() == 0))
    return true;
  std::string hint;
  if (t.isTensor() && t.rank() == 0)
    hint = " (compare it, e.g. 'x > 0')";
  else if (t.isTensor())
    hint = " (a condition must be a single bool; reduce it first, e.g. with max or sum)";
  error(c.expr ? c.expr->getRange() : llvm::SMRange(), std::string(what) + " must be bool, found " +
                                                           (c.callee ? "a function" : t.str()) + hint);
  return false;
}

void Sema::analyseStmt(const Stmt &s) {
  switch (s.getKind()) {
  case NodeKind::Import:
    if (inFunction)
      error(s.getRange(), "unsupported construct: 'import' inside a function (import at the top level)");
    return; // resolved by collectModule
  case NodeKind::FunctionDef:
    if (inFunction)
      error(llvm::cast<FunctionDefStmt>(s).getNameRange(),
            "unsupported construct: a def inside a function (define it at the top level)");
    return;
  case NodeKind::Assign: {
    auto &a = llvm::cast<AssignStmt>(s);
    analyseAssign(*a.getTarget(), expr(*a.getValue()), s.getRange());
    return;
  }
  case NodeKind::AugAssign: {
    auto &a = llvm::cast<AugAssignStmt>(s);
    Operand lhs = expr(*a.getTarget());
    Operand rhs = expr(*a.getValue());
    Operand r = binaryOp(a.getOp(), lhs, rhs, s.getRange(), a.getOpRange());
    analyseAssign(*a.getTarget(), r, s.getRange());
    return;
  }
  case NodeKind::If:
    return analyseIf(llvm::cast<IfStmt>(s));
  case NodeKind::While:
    return analyseWhile(llvm::cast<WhileStmt>(s));
  case NodeKind::For:
    return analyseFor(llvm::cast<ForStmt>(s));
  case NodeKind::Break:
  case NodeKind::Continue: {
    bool brk = s.getKind() == NodeKind::Break;
    if (loopDepth == 0) {
      error(s.getRange(), brk ? "'break' outside a loop" : "'continue' outside a loop");
      return;
    }
    Binding b;
    b.type = Type::boolTy();
    b.flag = 1;
    b.defLoc = s.getRange();
    env[brk ? "$brk" : "$cont"] = b;
    return;
  }
  case NodeKind::Return:
    return analyseReturn(llvm::cast<ReturnStmt>(s));
  case NodeKind::Pass:
    return;
  case NodeKind::Assert: {
    auto &a = llvm::cast<AssertStmt>(s);
    Operand c = expr(*a.getCond());
    std::string message = "assertion failed";
    if (a.getMessage()) {
      Operand m = expr(*a.getMessage());
      Const mc = constOf(m.value);
      if (auto *str = std::get_if<std::string>(&mc))
        message = *str;
      else if (!m.isError())
        error(a.getMessage()->getRange(), "assert message must be a string literal, found " +
                                              m.type.str());
    }
    if (!checkCondition(c, "assert condition"))
      return;
    auto [line, col] = diags.getLineAndColumn(s.getBeginLoc());
    Attrs attrs;
    attrs["message"] = message;
    attrs["location"] = diags.getBufferName(s.getBeginLoc()).str() + ":" + std::to_string(line);
    emitOp("assert", {c}, attrs, s.getRange());
    return;
  }
  case NodeKind::ExprStmt:
    expr(*llvm::cast<ExprStmt>(s).getExpr());
    return;
  default:
    error(s.getRange(), "unsupported construct");
  }
}

void Sema::analyseAssign(const Expr &target, Operand value, llvm::SMRange stmtLoc) {
  if (auto *n = llvm::dyn_cast<NameExpr>(&target)) {
    std::string name = n->getName().str();
    if (isBuiltin(name) && !env.count(name) && !module->functions.count(name)) {
      error(n->getRange(), "cannot assign to built-in '" + name + "'");
      return;
    }
    if (module->imports.count(name) && !env.count(name)) {
      error(n->getRange(), "cannot assign to module '" + name + "'");
      return;
    }
    if (parseDType(name)) {
      error(n->getRange(), "cannot assign to dtype '" + name + "'");
      return;
    }
    Binding b;
    b.value = value.value;
    b.type = value.callee ? Type::function(value.callee) : value.type;
    b.module = value.module;
    b.dtype = value.dtype;
    b.defLoc = n->getRange();
    if (b.value && b.value->name.empty())
      b.value->name = name;
    env[name] = b;
    partialNames.erase(name);
    return;
  }
  auto *t = llvm::dyn_cast<TupleExpr>(&target);
  if (!t) {
    error(target.getRange(), "unsupported construct: assignment to this expression");
    return;
  }
  const auto &targets = t->getElements();
  if (value.isError()) {
    for (const Expr *e : targets)
      analyseAssign(*e, poison(), stmtLoc);
    return;
  }
  if (!value.type.isTuple()) {
    error(stmtLoc, "cannot unpack " + value.type.str() + " into " + std::to_string(targets.size()) +
                       " names (only tuples can be unpacked)");
    for (const Expr *e : targets)
      analyseAssign(*e, poison(), stmtLoc);
    return;
  }
  if (value.type.elements().size() != targets.size()) {
    error(stmtLoc, "cannot unpack " + value.type.str() + " (" +
                       std::to_string(value.type.elements().size()) + " elements) into " +
                       std::to_string(targets.size()) + " names");
    for (const Expr *e : targets)
      analyseAssign(*e, poison(), stmtLoc);
    return;
  }
  for (size_t i = 0; i < targets.size(); ++i)
    analyseAssign(*targets[i], getElement(value, i, targets[i]->getRange()), stmtLoc);
}

void Sema::analyseIf(const IfStmt &s) {
  Operand c = expr(*s.getCond());
  if (!checkCondition(c, "condition")) {
    // Still analyse both branches for their own errors, on a poisoned condition.
    Env before = env;
    analyseBody(s.getThenBody());
    env = before;
    analyseBody(s.getElseBody());
    env = before;
    return;
  }
  emitIf(c.value, s.getRange(), [&] { analyseBody(s.getThenBody()); },
         [&] { analyseBody(s.getElseBody()); });
}

/// Materialises a compile-time flag binding as a const in the current block.
static Value *flagValue(Sema &s, Binding &b, llvm::SMRange loc) {
  if (!b.value && b.flag >= 0)
    b.value = s.constValue(bool(b.flag), loc);
  return b.value;
}

void Sema::emitIf(Value *cond, llvm::SMRange loc, const std::function<void()> &thenFn,
                  const std::function<void()> &elseFn, const char *thenName,
                  const char *elseName) {
  Env before = env;
  Block *parent = cur;
  auto op = std::make_unique<Operation>(OpKind::If, loc);
  op->operands = {cond};
  op->parent = parent;
  Block *thenBlock = op->addRegion().block.get();
  Block *elseBlock = op->addRegion().block.get();
  cur = thenBlock;
  thenFn();
  Env envT = std::move(env);
  env = before;
  cur = elseBlock;
  elseFn();
  Env envE = std::move(env);
  cur = parent;

  std::set<std::string> names;
  for (auto &[n, b] : envT)
    names.insert(n);
  for (auto &[n, b] : envE)
    names.insert(n);
  Env joined;
  std::vector<Value *> yieldT, yieldE;
  std::vector<std::pair<std::string, Binding>> results;
  for (const std::string &n : names) {
    auto t = envT.find(n), e = envE.find(n);
    if (t == envT.end() || e == envE.end()) {
      if (!isHiddenName(n)) {
        partialNames[n] = std::string("it is only assigned in the ") +
                          (t == envT.end() ? elseName : thenName);
        continue;
      }
      // A hidden variable set on one side only: false / undefined on the other.
      Env &missingEnv = t == envT.end() ? envT : envE;
      const Binding &other = t == envT.end() ? e->second : t->second;
      Binding fill;
      fill.type = other.type;
      if (isFlag(n))
        fill.flag = 0;
      else if (other.type.kind() != Type::Kind::None && !other.type.isError()) {
        cur = t == envT.end() ? thenBlock : elseBlock;
        fill.value = undef(other.type, loc);
        cur = parent;
      }
      missingEnv[n] = fill;
      t = envT.find(n);
      e = envE.find(n);
    }
    Binding &bt = t->second, &be = e->second;
    if (bt.value == be.value && bt.flag == be.flag && bt.type == be.type &&
        bt.module == be.module && bt.dtype == be.dtype) {
      joined[n] = bt;
      continue;
    }
    if (bt.type.isError() || be.type.isError()) {
      joined[n] = Binding();
      continue;
    }
    TypeResult u = unify(bt.type, be.type, program->dims);
    bool compileTime = bt.type.isFunction() || bt.type.kind() == Type::Kind::None ||
                       be.type.isFunction() || be.type.kind() == Type::Kind::None;
    if (!u.ok() || compileTime) {
      if (n == "$ifexp") {
        error(loc, "the two values of a conditional expression differ: " + bt.type.str() +
                       " and " + be.type.str());
      } else {
        std::string shown = n == "$retval" ? "the return value" : "'" + n + "'";
        error(loc, shown + " is " + bt.type.str() + " in the " + thenName + " and " +
                       be.type.str() + " in the " + elseName);
        if (bt.defLoc.Start.isValid())
          note(bt.defLoc, "assigned " + bt.type.str() + " here");
        if (be.defLoc.Start.isValid())
          note(be.defLoc, "assigned " + be.type.str() + " here");
      }
      joined[n] = Binding();
      continue;
    }
    cur = thenBlock;
    yieldT.push_back(flagValue(*this, bt, loc));
    cur = elseBlock;
    yieldE.push_back(flagValue(*this, be, loc));
    cur = parent;
    Binding r;
    r.type = u.type;
    // A return value joined with "not returned yet" keeps the location of its return.
    auto isUndef = [](const Binding &b) { return b.value && b.value->def && b.value->def->kind == OpKind::Undef; };
    r.defLoc = isUndef(be) ? bt.defLoc : isUndef(bt) ? be.defLoc : loc;
    results.push_back({n, r});
  }
  cur = thenBlock;
  emit(OpKind::Yield, loc, yieldT);
  cur = elseBlock;
  emit(OpKind::Yield, loc, yieldE);
  cur = parent;
  Operation *raw = op.get();
  parent->ops.push_back(std::move(op));
  for (auto &[n, b] : results) {
    b.value = raw->addResult(b.type);
    b.value->loc = loc;
    b.value->name = isHiddenName(n) ? "" : n;
    joined[n] = b;
  }
  env = std::move(joined);
}

void Sema::analyseReturn(const ReturnStmt &s) {
  if (!inFunction) {
    error(s.getRange(), "'return' outside a function");
    return;
  }
  Binding rv;
  if (s.getValue()) {
    Operand v = expr(*s.getValue());
    if (v.callee || v.module || v.dtype) {
      error(s.getValue()->getRange(), "unsupported construct: returning a function, module or dtype");
      v = poison();
    }
    rv.value = v.value;
    rv.type = v.type;
    rv.defLoc = s.getValue()->getRange();
  } else {
    rv.type = Type::none();
    rv.defLoc = s.getRange();
  }
  env["$retval"] = rv;
  Binding flag;
  flag.type = Type::boolTy();
  flag.flag = 1;
  env["$ret"] = flag;
}

/// The type an annotation fully determines (a Tensor without dtype is f32), or nullopt when
/// it leaves something open (a bare `Tensor`).
static std::optional<Type> annotatedType(const TypeExpr *ann) {
  if (auto *s = llvm::dyn_cast<ScalarTypeExpr>(ann)) {
    switch (s->getScalarKind()) {
    case ScalarTypeKind::Int: return Type::intTy();
    case ScalarTypeKind::Float: return Type::floatTy();
    case ScalarTypeKind::Bool: return Type::boolTy();
    case ScalarTypeKind::Str: return Type::strTy();
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
                op->kind == OpKind::Undef || (op->info && op->info->name == "const");
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
    std::string exe =
        llvm::sys::fs::getMainExecutable(argv0 ? argv0 : "", (void *)&findStdlibDir);
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

std::unique_ptr<ssa::Program> analyze(Module &module, DiagnosticEngine &diags,
                                      const SemaOptions &options) {
  sema::Sema s(diags, options);
  return s.run(module);
}

namespace sema {

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
  emit(OpKind::Return, mainModule.getRange());
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
