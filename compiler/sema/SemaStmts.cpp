//===- compiler/sema/SemaStmts.cpp - Statements, joins and exit flags ------===//
//
// Statements in order, with the exit transform: `break`, `continue` and `return` set hidden
// flags, and while a flag may be set the rest of a statement list runs under
// `if not (flags)`; flags known at compile time are never materialised. emitIf builds an `if`
// op and joins the variables of its two branches (unification of their types, errors with
// notes at both assignments).
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/SemaImpl.h"

namespace dlm::sema {

static bool isFlag(const std::string &n) { return n == "$ret" || n == "$brk" || n == "$cont"; }

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
    any = any.value ? emitOp(dlm::OpKind::LogicalOr, {any, o}, {}, loc) : o;
  }
  return emitOp(dlm::OpKind::LogicalNot, {any}, {}, loc).value;
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
    emitIf(
        go, loc,
        [&] {
          knowNotExited();
          analyseBody(stmts, i + 1);
        },
        [&] { knowExited(); });
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
  error(c.expr ? c.expr->getRange() : llvm::SMRange(),
        std::string(what) + " must be bool, found " + (c.callee ? "a function" : t.str()) + hint);
  return false;
}

void Sema::analyseStmt(const Stmt &s) {
  switch (s.getKind()) {
  case NodeKind::Import:
    if (inFunction)
      error(s.getRange(),
            "unsupported construct: 'import' inside a function (import at the top level)");
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
        error(a.getMessage()->getRange(),
              "assert message must be a string literal, found " + m.type.str());
    }
    if (!checkCondition(c, "assert condition"))
      return;
    auto [line, col] = diags.getLineAndColumn(s.getBeginLoc());
    Attrs attrs;
    attrs["message"] = message;
    attrs["location"] = diags.getBufferName(s.getBeginLoc()).str() + ":" + std::to_string(line);
    emitOp(dlm::OpKind::Assert, {c}, attrs, s.getRange());
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
    error(stmtLoc,
          "cannot unpack " + value.type.str() + " into " + std::to_string(targets.size()) +
              " names (only tuples can be unpacked)",
          {value});
    for (const Expr *e : targets)
      analyseAssign(*e, poison(), stmtLoc);
    return;
  }
  if (value.type.elements().size() != targets.size()) {
    error(stmtLoc,
          "cannot unpack " + value.type.str() + " (" +
              std::to_string(value.type.elements().size()) + " elements) into " +
              std::to_string(targets.size()) + " names",
          {value});
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
  emitIf(
      c.value, s.getRange(), [&] { analyseBody(s.getThenBody()); },
      [&] { analyseBody(s.getElseBody()); });
}

/// Materialises a compile-time flag binding as a const in the current block.
static Value *flagValue(Sema &s, Binding &b, llvm::SMRange loc) {
  if (!b.value && b.flag >= 0)
    b.value = s.constValue(bool(b.flag), loc);
  return b.value;
}

void Sema::emitIf(Value *cond, llvm::SMRange loc, const std::function<void()> &thenFn,
                  const std::function<void()> &elseFn, const char *thenName, const char *elseName) {
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
        partialNames[n] =
            std::string("it is only assigned in the ") + (t == envT.end() ? elseName : thenName);
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
        error(loc, "the two values of a conditional expression differ: " + bt.type.str() + " and " +
                       be.type.str());
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
    auto isUndef = [](const Binding &b) {
      return b.value && b.value->def && b.value->def->kind == OpKind::Undef;
    };
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
      error(s.getValue()->getRange(),
            "unsupported construct: returning a function, module or dtype");
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

} // namespace dlm::sema
