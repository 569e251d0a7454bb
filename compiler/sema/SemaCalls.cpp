//===- compiler/sema/SemaCalls.cpp - Specialisation and calls --------------===//
//
// Calls of defs: arguments are bound to parameters (arity and keyword errors), the callee is
// specialised at the argument types — static arguments (int/bool/str constants, functions,
// dtypes) by value — with a cache keyed by def and argument keys, and the call becomes a `call`
// op. grad/value_and_grad/checkpoint of any function value are typed here too: the callee is
// materialised as a specialised function and checked (scalar result, differentiable
// arguments). Recursion is rejected at the recursive call.
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/SemaImpl.h"

namespace dlm::sema {

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

  CallFrame frame{callLoc, fn->qualifiedName, def, args, given, {}};
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
    if (given[i] && b.value)
      frame.params[b.value] = i;
    std::string why;
    if (p->getAnnotation() && !checkAnnotation(p->getAnnotation(), arg.type, syms, why)) {
      badArgument = true;
      error(given[i] && arg.expr ? arg.expr->getRange() : callLoc,
            "argument '" + pname + "' of '" + fn->qualifiedName +
                "' does not match its annotation " + annotationStr(p->getAnnotation()) + ": " +
                why);
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
  callChain.push_back(std::move(frame));
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

  callChain.pop_back();
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
      s.error(args.loc,
              "missing argument '" + params[i]->getName().str() + "' in call to '" + name + "'");
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
  return emitCall(f, runtimeOperands(bound, given), args.loc);
}

Operand Sema::emitCall(Function *f, std::vector<Value *> operands, llvm::SMRange loc) {
  Operation *op = emit(OpKind::Call, loc, std::move(operands));
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
    emit(OpKind::Return, args.loc,
         r.value ? std::vector<Value *>{r.value} : std::vector<Value *>{});
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
  std::vector<bool> given(args.positional.size(), true);
  return emitCall(f, runtimeOperands(args.positional, given), args.loc);
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
    error(returnLocs[f],
          "grad: '" + fname + "' must return a scalar, but it returns " + f->resultType.str());
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
      error(g.loc, "argnums " + std::to_string(a) + " is out of range: '" + fname +
                       "' is called with " + std::to_string(args.positional.size()) + " arguments");
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

} // namespace dlm::sema
