//===- compiler/sema/SemaLoops.cpp - while, for-range and unrolled for -----===//
//
// Loops become `while` or `for` ops whose header values are the carried variables: those
// assigned in the body that already exist before the loop (loop-local values are not carried),
// plus the exit flags the body needs. The carried types are found by iteration:
//   1. type the body with the entry types;
//   2. generalise each carried type with its type at the end of the body (differing static
//      dims become fresh symbols; a dim that is already a fresh symbol stays);
//   3. if anything changed, throw the ops and diagnostics of this pass away and go to 1.
// Every step only turns dims into symbols, so this stops after at most (total rank + 2) passes.
//
// `for i in range(...)` with `break` or `return` in its body becomes a `while` over a hidden
// counter; `for x in (a, b)` is unrolled, one copy of the body per element.
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/SemaImpl.h"

namespace dlm::sema {

namespace {

/// Loop-carried type after one more iteration (see the file comment).
TypeResult generalise(const Type &before, const Type &after, DimContext &dims) {
  if (before == after || before.isError() || after.isError())
    return {before, ""};
  if (before.isTensor() && after.isTensor() && before.dtype() == after.dtype() &&
      before.rank() == after.rank()) {
    Shape s = before.shape();
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] != after.shape()[i] && !s[i].isFresh())
        s[i] = dims.fresh();
    return {Type::tensor(before.dtype(), s), ""};
  }
  if (before.isTuple() && after.isTuple() && before.elements().size() == after.elements().size()) {
    std::vector<Type> elems;
    for (size_t i = 0; i < before.elements().size(); ++i) {
      TypeResult r = generalise(before.elements()[i], after.elements()[i], dims);
      if (!r.ok())
        return r;
      elems.push_back(r.type);
    }
    return {Type::tuple(elems), ""};
  }
  return unify(before, after, dims);
}

bool isCompileTime(const Binding &b) {
  return b.module || b.dtype || b.type.isFunction() || b.type.kind() == Type::Kind::None;
}

} // namespace

struct LoopSpec {
  OpKind kind;
  llvm::SMRange loc;
  const Body *body;
  /// While: the condition, evaluated in the cond region (null after an error).
  std::function<Value *()> cond;
  /// For: lo, hi, step.
  std::vector<Value *> bounds;
  /// Binds the loop target at the start of the body (For: to the induction variable).
  std::function<void(Value *)> bindTarget;
  /// Runs at the end of the body, after every guard (the hidden counter's increment).
  std::function<void()> atEnd;
  /// Names the loop binds itself (targets): never carried.
  std::set<std::string> targets;
  /// Hidden variables to carry in addition to the assigned ones.
  std::vector<std::string> extraCarried;
};

/// The break/continue flags of an enclosing loop do not apply inside this one: hidden while
/// the scope lives, restored after.
struct LoopFlagsScope {
  Env &env;
  std::optional<Binding> brk, cont;
  explicit LoopFlagsScope(Env &env) : env(env) {
    if (auto it = env.find("$brk"); it != env.end())
      brk = it->second, env.erase(it);
    if (auto it = env.find("$cont"); it != env.end())
      cont = it->second, env.erase(it);
  }
  ~LoopFlagsScope() {
    env.erase("$brk");
    env.erase("$cont");
    if (brk)
      env["$brk"] = *brk;
    if (cont)
      env["$cont"] = *cont;
  }
};

void Sema::analyseLoop(const LoopSpec &spec) {
  LoopFlagsScope flags(env);

  std::set<std::string> assigned;
  collectAssigned(*spec.body, assigned);
  bool hasBreak = containsExit(*spec.body, NodeKind::Break, false);
  bool hasReturn = containsExit(*spec.body, NodeKind::Return, true);
  Binding falseFlag;
  falseFlag.type = Type::boolTy();
  falseFlag.flag = 0;
  if (hasBreak)
    env["$brk"] = falseFlag;
  if (hasReturn && !env.count("$ret"))
    env["$ret"] = falseFlag;

  std::vector<std::string> carried;
  std::map<std::string, std::optional<Type>> types;
  for (const std::string &n : assigned) {
    auto it = env.find(n);
    if (spec.targets.count(n) || it == env.end() || isCompileTime(it->second))
      continue;
    carried.push_back(n);
    types[n] = it->second.type;
  }
  std::vector<std::string> hidden = spec.extraCarried;
  if (hasBreak)
    hidden.push_back("$brk");
  if (hasReturn) {
    hidden.push_back("$ret");
    hidden.push_back("$retval");
  }
  for (const std::string &n : hidden) {
    carried.push_back(n);
    auto it = env.find(n);
    if (it != env.end())
      types[n] = it->second.type;
    else
      types[n] = std::nullopt; // `$retval` before any return: typed by the body
  }

  Env outer = env;
  Block *parent = cur;
  const int maxPasses = 64;
  // A carried variable whose types cannot be generalised is an error found in one pass; while
  // another variable still generalises, that pass's diagnostics are dropped and the next pass
  // sees only the error type (which generalises silently). The report is kept here and given
  // with the final pass's, or the loop would be dropped without a word.
  std::vector<std::function<void()>> conflicts;
  for (int pass = 0;; ++pass) {
    pushDiagBuffer();
    auto op = std::make_unique<Operation>(spec.kind, spec.loc);
    op->parent = parent;
    env = outer;
    if (spec.kind == OpKind::For)
      op->carried.push_back(std::make_unique<Value>(Type::intTy(), nullptr, 0, spec.loc));
    std::vector<std::string> headerNames;
    for (const std::string &n : carried) {
      if (!types[n]) {
        env.erase(n);
        continue;
      }
      auto v = std::make_unique<Value>(*types[n], nullptr, unsigned(op->carried.size()), spec.loc);
      v->name = isHiddenName(n) ? "" : n;
      Binding b = outer[n];
      b.value = v.get();
      b.type = *types[n];
      b.flag = -1;
      env[n] = b;
      op->carried.push_back(std::move(v));
      headerNames.push_back(n);
    }
    if (spec.kind == OpKind::While) {
      cur = op->addRegion().block.get();
      Value *c = spec.cond();
      if (c && exitPossible()) {
        Operand go, cond;
        go.value = notExitFlags(spec.loc);
        go.type = go.value->type;
        cond.value = c;
        cond.type = c->type;
        c = emitOp(dlm::OpKind::LogicalAnd, {go, cond}, {}, spec.loc).value;
      }
      if (!c)
        c = constValue(false, spec.loc);
      emit(OpKind::Condition, spec.loc, {c});
    }
    Block *body = op->addRegion().block.get();
    cur = body;
    // The body only runs while no exit flag is set (the condition tests them).
    for (const char *f : {"$brk", "$ret"})
      if (spec.kind == OpKind::While && env.count(f) &&
          std::count(headerNames.begin(), headerNames.end(), f))
        env[f] = falseFlag;
    if (spec.bindTarget)
      spec.bindTarget(spec.kind == OpKind::For ? op->carried[0].get() : nullptr);
    ++loopDepth;
    analyseBody(*spec.body);
    --loopDepth;
    env.erase("$cont");
    if (spec.atEnd)
      spec.atEnd();

    bool stable = true;
    for (const std::string &n : carried) {
      auto it = env.find(n);
      if (it == env.end())
        continue;
      if (!types[n]) {
        if (it->second.type.kind() != Type::Kind::None && !it->second.type.isError()) {
          types[n] = it->second.type;
          stable = false;
        }
        continue;
      }
      TypeResult g = generalise(*types[n], it->second.type, program->dims);
      if (!g.ok()) {
        const char *what = n == "$retval" ? "the return value" : nullptr;
        std::string before = types[n]->str(), after = it->second.type.str();
        llvm::SMRange outerDef = outer.count(n) ? outer[n].defLoc : llvm::SMRange(),
                      afterDef = it->second.defLoc;
        conflicts.push_back([=, this, loc = spec.loc] {
          error(loc, (what ? std::string(what) : "'" + n + "'") + " is " + before +
                         " before the loop and " + after + " after an iteration");
          if (outerDef.Start.isValid())
            note(outerDef, "assigned " + before + " here");
          if (afterDef.Start.isValid())
            note(afterDef, "assigned " + after + " here");
        });
        types[n] = Type::error();
        continue;
      }
      if (g.type != *types[n]) {
        types[n] = g.type;
        stable = false;
      }
    }
    // Carried types only ever become more general, so this terminates; the bound is a guard.
    if (!stable && pass + 1 < maxPasses) {
      popDiagBuffer(false);
      cur = parent;
      continue;
    }
    for (const auto &report : conflicts)
      report();

    // Final pass: yield the next values, give the initial ones, bind the results.
    std::vector<Value *> next, inits;
    for (const std::string &n : headerNames) {
      Binding &b = env[n];
      if (!b.value && b.flag >= 0)
        b.value = constValue(bool(b.flag), spec.loc);
      if (!b.value)
        b.value = undef(*types[n], spec.loc);
      next.push_back(b.value);
    }
    emit(OpKind::Yield, spec.loc, next);
    Env endEnv = std::move(env);
    cur = parent;
    for (const std::string &n : headerNames) {
      auto it = outer.find(n);
      Value *init = nullptr;
      if (it != outer.end()) {
        if (!it->second.value && it->second.flag >= 0)
          it->second.value = constValue(bool(it->second.flag), spec.loc);
        init = it->second.value;
      }
      if (!init)
        init = undef(*types[n], spec.loc);
      inits.push_back(init);
    }
    op->operands = spec.bounds;
    op->operands.insert(op->operands.end(), inits.begin(), inits.end());
    Operation *raw = op.get();
    parent->ops.push_back(std::move(op));
    env = outer;
    for (const std::string &n : headerNames) {
      Binding b = endEnv[n];
      b.value = raw->addResult(*types[n]);
      b.value->name = isHiddenName(n) ? "" : n;
      b.type = *types[n];
      b.flag = -1;
      if (types[n]->isError())
        b.value = nullptr;
      env[n] = b;
    }
    for (const std::string &n : assigned) {
      auto before = outer.find(n);
      if (spec.targets.count(n)) {
        continue;
      } else if (before == outer.end()) {
        partialNames[n] = "it is only assigned inside the loop";
      } else if (isCompileTime(before->second)) {
        auto after = endEnv.find(n);
        if (after != endEnv.end() && (after->second.type != before->second.type ||
                                      after->second.module != before->second.module ||
                                      after->second.dtype != before->second.dtype))
          error(after->second.defLoc, "unsupported construct: '" + n +
                                          "' is a function, module or dtype and cannot change "
                                          "inside a loop");
      }
    }
    // Like the counter of a C loop, the loop variable does not outlive its loop.
    for (const std::string &n : spec.targets) {
      env.erase(n);
      partialNames[n] = "it is the variable of a for loop and not visible after it";
    }
    for (const std::string &n : spec.extraCarried)
      env.erase(n);
    popDiagBuffer(true);
    break;
  }
}

void Sema::analyseWhile(const WhileStmt &s) {
  LoopSpec spec;
  spec.kind = OpKind::While;
  spec.loc = s.getRange();
  spec.body = &s.getBody();
  spec.cond = [&]() -> Value * {
    Operand c = expr(*s.getCond());
    return checkCondition(c, "loop condition") ? c.value : nullptr;
  };
  analyseLoop(spec);
}

void Sema::analyseFor(const ForStmt &s) {
  auto *call = llvm::dyn_cast<CallExpr>(s.getIterable());
  auto *callee = call ? llvm::dyn_cast<NameExpr>(call->getCallee()) : nullptr;
  if (callee && callee->getName() == "range" && !env.count("range"))
    return analyseRangeFor(s, *call);
  Operand it = expr(*s.getIterable());
  if (it.isError())
    return;
  if (!it.type.isTuple() || it.callee || it.module) {
    error(s.getIterable()->getRange(), "a for loop iterates over range(...) or a tuple, found " +
                                           (it.callee ? std::string("a function") : it.type.str()));
    return;
  }
  LoopFlagsScope flags(env);
  ++loopDepth;
  analyseTupleFor(s, it, 0);
  --loopDepth;
}

void Sema::analyseTupleFor(const ForStmt &s, const Operand &tuple, size_t from) {
  size_t n = tuple.type.elements().size();
  for (size_t i = from; i < n; ++i) {
    if (exitCertain())
      return;
    analyseAssign(*s.getTarget(), getElement(tuple, i, s.getTarget()->getRange()), s.getRange());
    analyseBody(s.getBody());
    env.erase("$cont");
    if (exitCertain() || i + 1 == n || !exitPossible())
      continue;
    // A break (or return) may have happened: later copies run only if it did not.
    Value *go = notExitFlags(s.getRange());
    emitIf(
        go, s.getRange(),
        [&] {
          knowNotExited();
          analyseTupleFor(s, tuple, i + 1);
        },
        [&] { knowExited(); });
    return;
  }
}

void Sema::analyseRangeFor(const ForStmt &s, const CallExpr &range) {
  const auto &a = range.getArgs();
  if (!range.getKeywordArgs().empty()) {
    error(range.getKeywordArgs()[0].nameRange, "range() takes no keyword arguments");
    return;
  }
  if (a.empty() || a.size() > 3) {
    error(range.getRange(),
          "range() takes 1 to 3 arguments, " + std::to_string(a.size()) + " given");
    return;
  }
  std::vector<Operand> args;
  bool ok = true;
  for (const Expr *e : a) {
    args.push_back(expr(*e));
    if (args.back().isError()) {
      ok = false;
    } else if (args.back().type.kind() != Type::Kind::Int) {
      error(e->getRange(), "range() arguments must be int, found " + args.back().type.str());
      ok = false;
    }
  }
  if (!ok)
    return;
  llvm::SMRange loc = range.getRange();
  Value *lo = args.size() > 1 ? args[0].value : constValue(int64_t(0), loc);
  Value *hi = args.size() > 1 ? args[1].value : args[0].value;
  Operand stepOp = args.size() > 2 ? args[2] : constant(int64_t(1), loc);
  std::optional<int64_t> step = intConst(stepOp);
  if (step && *step == 0) {
    error(a[2]->getRange(), "range() step must not be zero");
    return;
  }
  LoopSpec spec;
  spec.loc = s.getRange();
  spec.body = &s.getBody();
  collectTargetNames(s.getTarget(), spec.targets);
  bool early = containsExit(s.getBody(), NodeKind::Break, false) ||
               containsExit(s.getBody(), NodeKind::Return, true);
  if (!early) {
    spec.kind = OpKind::For;
    spec.bounds = {lo, hi, stepOp.value};
    spec.bindTarget = [&](Value *iv) {
      Operand o;
      o.value = iv;
      o.type = Type::intTy();
      analyseAssign(*s.getTarget(), o, s.getRange());
    };
    analyseLoop(spec);
    return;
  }
  // With break or return: a while loop over a hidden counter.
  if (!step) {
    error(a[2]->getRange(), "unsupported construct: a for loop with 'break' or 'return' needs a "
                            "constant range() step");
    return;
  }
  // One counter per loop depth: a for loop with a return inside another (the return makes both
  // while loops) must not count with the enclosing loop's counter.
  std::string counterName = "$i" + std::to_string(loopDepth);
  Binding counter;
  counter.value = lo;
  counter.type = Type::intTy();
  counter.defLoc = loc;
  env[counterName] = counter;
  spec.kind = OpKind::While;
  spec.extraCarried = {counterName};
  Operand hiOp;
  hiOp.value = hi;
  hiOp.type = Type::intTy();
  spec.cond = [&, hiOp, counterName]() -> Value * {
    Operand i;
    i.value = env[counterName].value;
    i.type = Type::intTy();
    return emitOp(*step > 0 ? dlm::OpKind::Lt : dlm::OpKind::Gt, {i, hiOp}, {}, loc).value;
  };
  spec.bindTarget = [&, counterName](Value *) {
    Operand i;
    i.value = env[counterName].value;
    i.type = Type::intTy();
    analyseAssign(*s.getTarget(), i, s.getRange());
  };
  spec.atEnd = [&, stepOp, counterName]() {
    Operand i;
    i.value = env[counterName].value;
    i.type = Type::intTy();
    env[counterName].value = emitOp(dlm::OpKind::Add, {i, stepOp}, {}, loc).value;
  };
  analyseLoop(spec);
}

} // namespace dlm::sema
