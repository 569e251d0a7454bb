//===- compiler/sema/SemaExpr.cpp - Names and expressions ------------------===//
//
// Typing of expressions: name lookup (locals, the module's defs, imports, built-ins, dtype names)
// with "did you mean" suggestions, arithmetic through the op registry with constant folding of
// scalars (so `axis=-1` and `range(2 * n)` are constants), short-circuit-free `and`/`or`,
// conditional expressions as `if` ops, calls, attributes (`x.shape`, `x.T`, `nn.linear`) and
// indexing of tuples (constant indices) and tensors (ints and slices).
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/SemaImpl.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"

#include <cmath>

namespace dlm::sema {

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

std::vector<std::string> Sema::visibleNames() const {
  std::vector<std::string> out;
  for (const auto &[n, b] : env)
    out.push_back(n);
  for (const auto &[n, f] : module->functions)
    out.push_back(n);
  for (const auto &[n, m] : module->imports)
    out.push_back(n);
  for (const std::string &n : builtinNames())
    out.push_back(n);
  return out;
}

const Binding *Sema::lookup(llvm::StringRef n, llvm::SMRange loc, bool report) {
  std::string key = n.str();
  if (auto it = env.find(key); it != env.end())
    return &it->second;
  std::string globalKey = module->path + "\n" + key;
  if (auto it = globals.find(globalKey); it != globals.end())
    return &it->second;
  Binding b;
  if (auto it = module->callables.find(key); it != module->callables.end()) {
    b.type = Type::function(it->second);
  } else if (auto it = module->imports.find(key); it != module->imports.end()) {
    b.module = it->second; // null when the import failed: a poisoned name
  } else if (auto dt = parseDType(key)) {
    b.dtype = *dt;
  } else if (isBuiltin(key)) {
    b.type = Type::function(std::make_shared<BuiltinCallable>(key));
  } else {
    if (!report)
      return nullptr;
    if (auto p = partialNames.find(key); p != partialNames.end()) {
      error(loc, "'" + key + "' is not defined here: " + p->second);
      return nullptr;
    }
    std::string guess = closestName(n, visibleNames());
    std::string hint = guess.empty() ? "" : "; did you mean '" + guess + "'?";
    // `nn.linear(...)` without `import nn` (the REPL completes nn.<Tab> before the import).
    if (llvm::sys::fs::exists(options.stdlibDir + "/" + key + ".dlm"))
      hint = "; the library module '" + key + "' needs 'import " + key + "' first";
    error(loc, "undefined name '" + key + "'" + hint);
    if (inFunction && mainNames.count(key))
      note(loc,
           "top-level variables are not visible inside a def; pass '" + key + "' as an argument");
    return nullptr;
  }
  return &globals.emplace(globalKey, b).first->second;
}

Operand Sema::name(const NameExpr &e) {
  if (auto c = options.constants.find(e.getName().str());
      c != options.constants.end() && !env.count(c->first) && module == modules.front().get()) {
    Operand o = std::visit([&](auto v) { return constant(v, e.getRange()); }, c->second);
    o.expr = &e;
    return o;
  }
  const Binding *b = lookup(e.getName(), e.getRange());
  Operand o;
  o.expr = &e;
  if (!b)
    return o;
  o.value = b->value;
  o.type = b->type;
  o.module = b->module;
  o.dtype = b->dtype;
  if (b->type.isFunction())
    o.callee = b->type.callee();
  if (!o.value && !o.module && !o.dtype && !o.callee && o.type.kind() != Type::Kind::None)
    o.type = Type::error();
  return o;
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

static dlm::OpKind binaryOpKind(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return dlm::OpKind::Add;
  case BinaryOp::Sub:
    return dlm::OpKind::Sub;
  case BinaryOp::Mul:
    return dlm::OpKind::Mul;
  case BinaryOp::Div:
    return dlm::OpKind::Div;
  case BinaryOp::FloorDiv:
    return dlm::OpKind::Floordiv;
  case BinaryOp::Mod:
    return dlm::OpKind::Mod;
  case BinaryOp::Pow:
    return dlm::OpKind::Pow;
  case BinaryOp::MatMul:
    return dlm::OpKind::Matmul;
  case BinaryOp::Lt:
    return dlm::OpKind::Lt;
  case BinaryOp::Le:
    return dlm::OpKind::Le;
  case BinaryOp::Gt:
    return dlm::OpKind::Gt;
  case BinaryOp::Ge:
    return dlm::OpKind::Ge;
  case BinaryOp::Eq:
    return dlm::OpKind::Eq;
  case BinaryOp::Ne:
    return dlm::OpKind::Ne;
  }
  llvm_unreachable("a binary operator without an op");
}

/// Folds `a op b` for constant scalars; monostate when it does not fold.
static Const foldBinary(BinaryOp op, const Const &a, const Const &b, bool &divByZero) {
  auto asDouble = [](const Const &c) -> std::optional<double> {
    if (auto *i = std::get_if<int64_t>(&c))
      return double(*i);
    if (auto *d = std::get_if<double>(&c))
      return *d;
    if (auto *b = std::get_if<bool>(&c))
      return double(*b);
    return std::nullopt;
  };
  auto asInt = [](const Const &c) -> std::optional<int64_t> {
    if (auto *i = std::get_if<int64_t>(&c))
      return *i;
    if (auto *b = std::get_if<bool>(&c))
      return int64_t(*b);
    return std::nullopt;
  };
  auto x = asDouble(a), y = asDouble(b);
  if (!x || !y || op == BinaryOp::MatMul)
    return {};
  if (isComparison(op)) {
    switch (op) {
    case BinaryOp::Lt:
      return *x < *y;
    case BinaryOp::Le:
      return *x <= *y;
    case BinaryOp::Gt:
      return *x > *y;
    case BinaryOp::Ge:
      return *x >= *y;
    case BinaryOp::Eq:
      return *x == *y;
    default:
      return *x != *y;
    }
  }
  auto i = asInt(a), j = asInt(b);
  bool ints = i && j; // Python: arithmetic on bools is arithmetic on ints (True + True == 2)
  if ((op == BinaryOp::Div || op == BinaryOp::FloorDiv || op == BinaryOp::Mod) && *y == 0) {
    divByZero = true;
    return {};
  }
  if (ints) {
    switch (op) {
    case BinaryOp::Add:
      return *i + *j;
    case BinaryOp::Sub:
      return *i - *j;
    case BinaryOp::Mul:
      return *i * *j;
    case BinaryOp::Div:
      return double(*i) / double(*j);
    case BinaryOp::FloorDiv: {
      int64_t q = *i / *j;
      return (*i % *j != 0 && ((*i < 0) != (*j < 0))) ? q - 1 : q;
    }
    case BinaryOp::Mod: {
      int64_t r = *i % *j;
      return (r != 0 && ((r < 0) != (*j < 0))) ? r + *j : r;
    }
    case BinaryOp::Pow:
      if (*j < 0)
        return std::pow(double(*i), double(*j));
      return int64_t(std::llround(std::pow(double(*i), double(*j))));
    default:
      return {};
    }
  }
  switch (op) {
  case BinaryOp::Add:
    return *x + *y;
  case BinaryOp::Sub:
    return *x - *y;
  case BinaryOp::Mul:
    return *x * *y;
  case BinaryOp::Div:
    return *x / *y;
  case BinaryOp::FloorDiv:
    return std::floor(*x / *y);
  case BinaryOp::Mod:
    return *x - std::floor(*x / *y) * *y;
  case BinaryOp::Pow:
    return std::pow(*x, *y);
  default:
    return {};
  }
}

Operand Sema::binaryOp(BinaryOp op, Operand lhs, Operand rhs, llvm::SMRange loc,
                       llvm::SMRange opLoc) {
  if (lhs.isError() || rhs.isError())
    return poison();
  bool divByZero = false;
  Const folded = foldBinary(op, constOf(lhs.value), constOf(rhs.value), divByZero);
  if (divByZero) {
    error(loc, "division by zero");
    return poison();
  }
  if (!std::holds_alternative<std::monostate>(folded))
    return constant(folded, loc);
  bool arithmetic = !isComparison(op) && op != BinaryOp::MatMul;
  if (arithmetic && !lhs.callee && !rhs.callee && (lhs.type.isTuple() || rhs.type.isTuple()))
    return tupleArith(op, lhs, rhs, loc, opLoc);
  for (const Operand *o : {&lhs, &rhs}) {
    if (o->type.kind() == Type::Kind::Str || o->type.isTuple()) {
      error(loc, "unsupported operand types for " + binaryOpSpelling(op).str() + ": " +
                     lhs.type.str() + " and " + rhs.type.str());
      return poison();
    }
  }
  if (arithmetic && lhs.type.dtype() == DType::Bool && rhs.type.dtype() == DType::Bool &&
      !lhs.callee && !rhs.callee)
    return boolArith(op, lhs, rhs, loc, opLoc);
  return emitOp(binaryOpKind(op), {lhs, rhs}, {}, loc);
}

/// Arithmetic with two bool operands, made explicit so that no kernel has to guess: two bool
/// scalars follow Python (they are ints: `a + b` with a, b bool is 0, 1 or 2); bool tensors
/// follow PyTorch (`+` is logical or, `*` logical and, `/` gives floats, and `-`, `//`, `%`,
/// `**` are errors).
Operand Sema::boolArith(BinaryOp op, Operand lhs, Operand rhs, llvm::SMRange loc,
                        llvm::SMRange opLoc) {
  if (!lhs.type.isTensor() && !rhs.type.isTensor()) {
    Attrs toInt;
    toInt["dtype"] = DType::I64;
    lhs = emitOp(dlm::OpKind::Cast, {lhs}, toInt, loc);
    rhs = emitOp(dlm::OpKind::Cast, {rhs}, toInt, loc);
    return emitOp(binaryOpKind(op), {lhs, rhs}, {}, loc);
  }
  switch (op) {
  case BinaryOp::Add:
    return emitOp(dlm::OpKind::LogicalOr, {lhs, rhs}, {}, loc);
  case BinaryOp::Mul:
    return emitOp(dlm::OpKind::LogicalAnd, {lhs, rhs}, {}, loc);
  case BinaryOp::Div:
    return emitOp(dlm::OpKind::Div, {lhs, rhs}, {}, loc);
  default:
    error(opLoc, "'" + binaryOpSpelling(op).str() + "' is not supported on bool tensors (" +
                     lhs.type.str() + " and " + rhs.type.str() +
                     "), as in PyTorch; convert with .astype(i64) first");
    return poison();
  }
}

Operand Sema::tupleArith(BinaryOp op, const Operand &lhs, const Operand &rhs, llvm::SMRange loc,
                         llvm::SMRange opLoc) {
  // Leaf by leaf (docs/language.md "Tuples"): `params - lr * grads` updates a whole parameter set.
  size_t n = (lhs.type.isTuple() ? lhs : rhs).type.elements().size();
  if (lhs.type.isTuple() && rhs.type.isTuple() && rhs.type.elements().size() != n) {
    error(loc, "tuple operands of '" + binaryOpSpelling(op).str() +
                   "' have different lengths: " + lhs.type.str() + " and " + rhs.type.str());
    return poison();
  }
  std::vector<Operand> elems;
  for (size_t i = 0; i < n; ++i) {
    Operand l = lhs.type.isTuple() ? getElement(lhs, i, loc) : lhs;
    Operand r = rhs.type.isTuple() ? getElement(rhs, i, loc) : rhs;
    l.expr = lhs.expr;
    r.expr = rhs.expr;
    Operand e = binaryOp(op, l, r, loc, opLoc);
    if (e.isError())
      return poison();
    elems.push_back(e);
  }
  return tupleExpr(elems, loc);
}

Operand Sema::binary(const BinaryExpr &e) {
  // `a + b + c + ...` nests to the left, as deep as the chain is long (the parser allows
  // chains of any length): walk down the left spine with a loop, then evaluate from the
  // innermost operator out, left operand before right as in the recursive form.
  std::vector<const BinaryExpr *> spine{&e};
  while (const auto *inner = llvm::dyn_cast<BinaryExpr>(spine.back()->getLHS()))
    spine.push_back(inner);
  Operand lhs = expr(*spine.back()->getLHS());
  for (auto it = spine.rbegin(); it != spine.rend(); ++it) {
    Operand rhs = expr(*(*it)->getRHS());
    lhs = binaryOp((*it)->getOp(), lhs, rhs, (*it)->getRange(), (*it)->getOpRange());
    lhs.expr = *it;
  }
  return lhs;
}

/// True for bool or bool[] (a 0-d bool tensor).
static bool isBoolScalar(const Type &t) {
  return t.kind() == Type::Kind::Bool ||
         (t.isTensor() && t.dtype() == DType::Bool && t.rank() == 0);
}

Operand Sema::boolOp(const BoolOpExpr &e) {
  const char *word = e.getOp() == BoolOpKind::And ? "and" : "or";
  Operand lhs = expr(*e.getLHS());
  Operand rhs = expr(*e.getRHS());
  bool ok = true;
  for (const Operand *o : {&lhs, &rhs}) {
    if (o->isError()) {
      ok = false;
    } else if (!isBoolScalar(o->type) || o->callee) {
      error(o->expr->getRange(), "'" + std::string(word) + "' needs bool operands, found " +
                                     (o->callee ? "a function" : o->type.str()));
      ok = false;
    }
  }
  if (!ok)
    return poison(&e);
  Const a = constOf(lhs.value), b = constOf(rhs.value);
  if (auto *x = std::get_if<bool>(&a))
    if (auto *y = std::get_if<bool>(&b))
      return constant(e.getOp() == BoolOpKind::And ? (*x && *y) : (*x || *y), e.getRange());
  Operand r =
      emitOp(e.getOp() == BoolOpKind::And ? dlm::OpKind::LogicalAnd : dlm::OpKind::LogicalOr,
             {lhs, rhs}, {}, e.getRange());
  r.expr = &e;
  return r;
}

Operand Sema::unary(const UnaryExpr &e) {
  Operand x = expr(*e.getOperand());
  if (x.isError())
    return poison(&e);
  Const c = constOf(x.value);
  Operand r;
  if (e.getOp() == UnaryOp::Neg) {
    if (auto *i = std::get_if<int64_t>(&c))
      r = constant(-*i, e.getRange());
    else if (auto *d = std::get_if<double>(&c))
      r = constant(-*d, e.getRange());
    else if (x.type.isTensor() && x.type.dtype() == DType::Bool) {
      error(e.getRange(), "unary '-' is not supported on bool tensors (" + x.type.str() +
                              "), as in PyTorch; use 'not' for a bool or .astype(i64) first");
      return poison(&e);
    } else if (x.type.kind() == Type::Kind::Bool && !x.callee) {
      Attrs toInt; // Python: -True == -1
      toInt["dtype"] = DType::I64;
      r = emitOp(dlm::OpKind::Neg, {emitOp(dlm::OpKind::Cast, {x}, toInt, e.getRange())}, {},
                 e.getRange());
    } else
      r = mapLeaves(dlm::OpKind::Neg, x, e.getRange());
  } else {
    if (!isBoolScalar(x.type) || x.callee) {
      error(e.getOperand()->getRange(), "'not' needs a bool operand, found " +
                                            (x.callee ? std::string("a function") : x.type.str()));
      return poison(&e);
    }
    if (auto *b = std::get_if<bool>(&c))
      r = constant(!*b, e.getRange());
    else
      r = emitOp(dlm::OpKind::LogicalNot, {x}, {}, e.getRange());
  }
  r.expr = &e;
  return r;
}

Operand Sema::mapLeaves(dlm::OpKind op, const Operand &x, llvm::SMRange loc) {
  if (!x.type.isTuple() || x.callee)
    return emitOp(op, {x}, {}, loc);
  std::vector<Operand> elems;
  for (size_t i = 0; i < x.type.elements().size(); ++i) {
    Operand leaf = getElement(x, i, loc);
    leaf.expr = x.expr;
    Operand e = mapLeaves(op, leaf, loc);
    if (e.isError())
      return poison();
    elems.push_back(e);
  }
  return tupleExpr(elems, loc);
}

Operand Sema::ifExp(const IfExpExpr &e) {
  Operand c = expr(*e.getCond());
  if (!checkCondition(c, "condition")) {
    expr(*e.getThenValue());
    expr(*e.getElseValue());
    return poison(&e);
  }
  auto side = [&](const Expr *x) {
    return [this, x] {
      Operand v = expr(*x);
      Binding b;
      b.value = v.value;
      b.type = v.callee ? Type::function(v.callee) : v.type;
      b.defLoc = x->getRange();
      env["$ifexp"] = b;
    };
  };
  emitIf(c.value, e.getRange(), side(e.getThenValue()), side(e.getElseValue()));
  Binding b = env["$ifexp"];
  env.erase("$ifexp");
  Operand r;
  r.expr = &e;
  r.value = b.value;
  r.type = b.value ? b.type : Type::error();
  return r;
}

//===----------------------------------------------------------------------===//
// Calls and attributes
//===----------------------------------------------------------------------===//

/// `mod.name` as a function value; reports an unknown name.
static Operand moduleFunction(Sema &s, ModuleInfo *mod, const AttributeExpr &attr) {
  Operand o;
  o.expr = &attr;
  std::string n = attr.getName().str();
  if (auto it = mod->callables.find(n); it != mod->callables.end()) {
    o.callee = it->second;
    o.type = Type::function(it->second);
    return o;
  }
  std::vector<std::string> names;
  for (const auto &[f, def] : mod->functions)
    names.push_back(f);
  std::string guess = closestName(n, names);
  s.error(attr.getNameRange(), "module '" + mod->name + "' has no function '" + n + "'" +
                                   (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
  return o;
}

Operand Sema::call(const CallExpr &e) {
  CallArgs args;
  args.call = &e;
  args.loc = e.getRange();
  Operand callee;
  std::string method;
  if (auto *attr = llvm::dyn_cast<AttributeExpr>(e.getCallee())) {
    Operand base = expr(*attr->getValue());
    if (base.module) {
      callee = moduleFunction(*this, base.module, *attr);
    } else if (!base.isError() && !base.callee && !base.dtype && !base.module &&
               isMethod(attr->getName()) && base.type.isTensor()) {
      method = attr->getName().str();
      args.positional.push_back(base);
    } else if (!base.isError()) {
      std::string what = base.callee ? "a function" : base.dtype ? "a dtype" : base.type.str();
      std::vector<std::string> methods = builtinNames();
      std::string guess = base.type.isTensor() ? closestName(attr->getName(), methods) : "";
      error(attr->getNameRange(), what + " has no method '" + attr->getName().str() + "'" +
                                      (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
    }
  } else {
    callee = expr(*e.getCallee());
  }
  bool argError = false;
  // tensor([[1.0, 2.0], ...]) reads its list literal itself; a list is no value anywhere else.
  auto b = std::dynamic_pointer_cast<const BuiltinCallable>(callee.callee);
  bool literal = b && b->name == "tensor";
  for (const Expr *a : e.getArgs()) {
    if (literal && llvm::isa<ListExpr>(a)) {
      Operand list;
      list.expr = a;
      list.type = Type::none();
      args.positional.push_back(list);
      continue;
    }
    args.positional.push_back(expr(*a));
    argError |= args.positional.back().isError();
  }
  for (const KeywordArg &k : e.getKeywordArgs()) {
    args.keywords.push_back({&k, expr(*k.value)});
    argError |= args.keywords.back().second.isError();
  }
  Operand r;
  if (!method.empty()) {
    args.calleeName = method;
    r = argError ? poison() : callBuiltin(method, args);
  } else if (callee.callee) {
    args.calleeName = callee.callee->describe().substr(callee.callee->describe().rfind(' ') + 1);
    r = argError ? poison() : callCallable(callee.callee, args);
  } else if (callee.module) {
    error(e.getCallee()->getRange(), "module '" + callee.module->name + "' is not callable");
  } else if (callee.dtype && *callee.dtype == DType::Bool) {
    // `bool` names a dtype and, called, Python's conversion (SemaBuiltins.cpp toScalar).
    args.calleeName = "bool";
    r = argError ? poison() : callBuiltin("bool", args);
  } else if (callee.dtype) {
    error(e.getCallee()->getRange(), "'" + std::string(dtypeName(*callee.dtype)) +
                                         "' is a dtype, not a function; use x.astype(" +
                                         std::string(dtypeName(*callee.dtype)) + ")");
  } else if (!callee.isError() && callee.expr) {
    auto *n = llvm::dyn_cast<NameExpr>(e.getCallee());
    error(e.getCallee()->getRange(), (n ? "'" + n->getName().str() + "' is not a function; it is "
                                        : std::string("cannot call ")) +
                                         callee.type.str());
    noteDefinitions({e.getCallee()});
  }
  r.expr = &e;
  return r;
}

Operand Sema::attribute(const AttributeExpr &e) {
  Operand base = expr(*e.getValue());
  if (base.module)
    return moduleFunction(*this, base.module, e);
  if (base.isError())
    return poison(&e);
  std::string n = e.getName().str();
  bool tensor = base.type.isTensor() && !base.callee;
  Operand r;
  if (tensor && n == "shape") {
    r = shapeOf(base, e.getRange());
  } else if (tensor && n == "T") {
    r = emitOp(dlm::OpKind::Transpose, {base}, {}, e.getRange());
  } else if (tensor && n == "ndim") {
    r = constant(int64_t(base.type.rank()), e.getRange());
  } else if (tensor && isMethod(n)) {
    error(e.getNameRange(), "'" + n + "' is a method; call it: x." + n + "(...)");
    return poison(&e);
  } else {
    std::string guess = tensor ? closestName(n, {"shape", "T", "ndim"}) : "";
    error(e.getNameRange(), (base.callee  ? std::string("a function")
                             : base.dtype ? std::string("a dtype")
                                          : base.type.str()) +
                                " has no attribute '" + n + "'" +
                                (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
    return poison(&e);
  }
  r.expr = &e;
  return r;
}

//===----------------------------------------------------------------------===//
// Tuples and indexing
//===----------------------------------------------------------------------===//

Operand Sema::tupleExpr(const std::vector<Operand> &elems, llvm::SMRange loc) {
  std::vector<Value *> values;
  std::vector<Type> types;
  for (const Operand &o : elems) {
    if (o.isError())
      return poison();
    if (o.callee || o.module || o.dtype || !o.value) {
      error(o.expr ? o.expr->getRange() : loc,
            "unsupported construct: a tuple element must be a value, found " +
                std::string(o.callee   ? "a function"
                            : o.module ? "a module"
                            : o.dtype  ? "a dtype"
                                       : "none"));
      return poison();
    }
    values.push_back(o.value);
    types.push_back(o.type);
  }
  Operation *op = emit(OpKind::Tuple, loc, values);
  Operand r;
  r.type = Type::tuple(types);
  r.value = op->addResult(r.type);
  return r;
}

Operand Sema::getElement(const Operand &tuple, size_t i, llvm::SMRange loc) {
  Operand r;
  r.type = tuple.type.elements()[i];
  if (tuple.value->def && tuple.value->def->kind == OpKind::Tuple) {
    r.value = tuple.value->def->operands[i];
    return r;
  }
  Operation *op = emit(OpKind::Get, loc, {tuple.value});
  op->attrs["index"] = int64_t(i);
  r.value = op->addResult(r.type);
  return r;
}

Operand Sema::dimOf(const Operand &x, size_t axis, llvm::SMRange loc) {
  const Dim &d = x.type.shape()[axis];
  if (d.isStatic())
    return constant(d.size(), loc);
  Operation *op = emit(OpKind::Dim, loc, {x.value});
  op->attrs["axis"] = int64_t(axis);
  Operand r;
  r.type = Type::intTy();
  r.value = op->addResult(r.type);
  return r;
}

Operand Sema::shapeOf(const Operand &x, llvm::SMRange loc) {
  std::vector<Operand> dims;
  for (size_t i = 0; i < x.type.rank(); ++i)
    dims.push_back(dimOf(x, i, loc));
  return tupleExpr(dims, loc);
}

Operand Sema::tupleIndex(const Operand &t, const Expr &index, llvm::SMRange loc) {
  if (llvm::isa<SliceExpr>(index)) {
    error(index.getRange(), "unsupported construct: slicing a tuple", {t});
    return poison();
  }
  Operand i = expr(index);
  if (i.isError())
    return poison();
  std::optional<int64_t> c = intConst(i);
  if (!c) {
    error(index.getRange(),
          "tuple index must be a constant int, found " +
              (i.type.kind() == Type::Kind::Int ? std::string("a run-time int") : i.type.str()));
    return poison();
  }
  int64_t n = int64_t(t.type.elements().size());
  if (*c < -n || *c >= n) {
    error(index.getRange(),
          "tuple index " + std::to_string(*c) + " is out of range for " + t.type.str() + " (" +
              std::to_string(n) + " elements)",
          {t});
    return poison();
  }
  return getElement(t, size_t(*c < 0 ? *c + n : *c), loc);
}

Operand Sema::tensorIndex(const Operand &t, const SubscriptExpr &e) {
  const auto &indices = e.getIndices();
  size_t rank = t.type.rank();
  if (indices.size() > rank) {
    error(e.getRange(),
          "too many indices for " + t.type.str() + " (rank " + std::to_string(rank) +
              "): " + std::to_string(indices.size()) + " given",
          {t});
    return poison(&e);
  }
  std::vector<int64_t> begin(rank, 0), end(rank, kSliceToEnd), step(rank, 1);
  std::vector<Value *> dynamic;
  std::vector<std::pair<size_t, Operand>> ints;
  bool anySlice = false, ok = true;
  auto bound = [&](const Expr *x, int64_t &slot) {
    if (!x)
      return;
    Operand o = expr(*x);
    if (o.isError()) {
      ok = false;
    } else if (o.type.kind() != Type::Kind::Int) {
      error(x->getRange(), "slice bounds must be int, found " + o.type.str());
      ok = false;
    } else if (auto c = intConst(o)) {
      slot = *c;
    } else {
      slot = kDynamicIndex;
      dynamic.push_back(o.value);
    }
  };
  for (size_t k = 0; k < indices.size(); ++k) {
    if (auto *s = llvm::dyn_cast<SliceExpr>(indices[k])) {
      anySlice = true;
      bound(s->getLower(), begin[k]);
      bound(s->getUpper(), end[k]);
      bound(s->getStep(), step[k]);
      if (step[k] == 0) {
        error(s->getStep()->getRange(), "slice step cannot be zero");
        ok = false;
      }
      // An omitted start is the first element in the step's direction: the last one for a
      // negative step (`x[::-1]`), which begin 0 would not say.
      if (!s->getLower() && s->getStep())
        begin[k] = kSliceToEnd;
      continue;
    }
    Operand o = expr(*indices[k]);
    if (o.isError()) {
      ok = false;
      continue;
    }
    if (o.type.kind() != Type::Kind::Int) {
      error(indices[k]->getRange(), "a tensor index must be an int or a slice, found " +
                                        (o.callee ? std::string("a function") : o.type.str()));
      ok = false;
      continue;
    }
    const Dim &d = t.type.shape()[k];
    if (auto c = intConst(o); c && d.isStatic()) {
      if (*c < -d.size() || *c >= d.size()) {
        error(indices[k]->getRange(), "index " + std::to_string(*c) + " is out of range for dim " +
                                          std::to_string(k) + " of " + t.type.str() + " (size " +
                                          d.str() + ")");
        noteDefinitions({e.getValue()});
        ok = false;
        continue;
      }
      if (*c < 0)
        o = constant(*c + d.size(), indices[k]->getRange());
    }
    ints.push_back({k, o});
  }
  if (!ok)
    return poison(&e);
  Operand cur = t;
  if (anySlice) {
    Attrs attrs;
    attrs["begin"] = begin;
    attrs["end"] = end;
    attrs["step"] = step;
    cur = emitOp(dlm::OpKind::Slice, {cur}, attrs, e.getRange(), dynamic);
  }
  for (auto it = ints.rbegin(); it != ints.rend() && !cur.isError(); ++it) {
    Attrs attrs;
    attrs["axis"] = int64_t(it->first);
    cur = emitOp(dlm::OpKind::Index, {cur, it->second}, attrs, e.getRange());
  }
  cur.expr = &e;
  return cur;
}

Operand Sema::subscript(const SubscriptExpr &e) {
  Operand base = expr(*e.getValue());
  if (base.isError())
    return poison(&e);
  Operand r;
  if (base.type.isTuple() && !base.callee) {
    if (e.getIndices().size() != 1) {
      error(e.getRange(),
            "a tuple takes one index, " + std::to_string(e.getIndices().size()) + " given");
      return poison(&e);
    }
    r = tupleIndex(base, *e.getIndices()[0], e.getRange());
  } else if (base.type.isTensor() && !base.callee) {
    return tensorIndex(base, e);
  } else {
    error(e.getValue()->getRange(), "cannot index " + (base.callee  ? std::string("a function")
                                                       : base.dtype ? std::string("a dtype")
                                                                    : base.type.str()));
    return poison(&e);
  }
  r.expr = &e;
  return r;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

Operand Sema::expr(const Expr &e) {
  Operand r;
  switch (e.getKind()) {
  case NodeKind::Name:
    return name(llvm::cast<NameExpr>(e));
  case NodeKind::IntLiteral:
    r = constant(llvm::cast<IntLiteralExpr>(e).getValue(), e.getRange());
    break;
  case NodeKind::FloatLiteral:
    r = constant(llvm::cast<FloatLiteralExpr>(e).getValue(), e.getRange());
    break;
  case NodeKind::BoolLiteral:
    r = constant(llvm::cast<BoolLiteralExpr>(e).getValue(), e.getRange());
    break;
  case NodeKind::StringLiteral:
    r = constant(llvm::cast<StringLiteralExpr>(e).getValue().str(), e.getRange());
    break;
  case NodeKind::Tuple: {
    std::vector<Operand> elems;
    for (const Expr *x : llvm::cast<TupleExpr>(e).getElements())
      elems.push_back(expr(*x));
    r = tupleExpr(elems, e.getRange());
    break;
  }
  case NodeKind::List:
    error(e.getRange(), "unsupported construct: a list outside tensor(...); use a tuple");
    return poison(&e);
  case NodeKind::Binary:
    return binary(llvm::cast<BinaryExpr>(e));
  case NodeKind::BoolOp:
    return boolOp(llvm::cast<BoolOpExpr>(e));
  case NodeKind::Unary:
    return unary(llvm::cast<UnaryExpr>(e));
  case NodeKind::IfExp:
    return ifExp(llvm::cast<IfExpExpr>(e));
  case NodeKind::Call:
    return call(llvm::cast<CallExpr>(e));
  case NodeKind::Attribute:
    return attribute(llvm::cast<AttributeExpr>(e));
  case NodeKind::Subscript:
    return subscript(llvm::cast<SubscriptExpr>(e));
  default:
    error(e.getRange(), "unsupported construct: a slice outside an index");
    return poison(&e);
  }
  r.expr = &e;
  return r;
}

} // namespace dlm::sema
