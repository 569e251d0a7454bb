//===- compiler/sema/SemaBuiltins.cpp - The language's built-in functions --===//
//
// Maps each built-in of LANGUAGE.md "Built-in operations" onto registry ops: binds the call's
// positional and keyword arguments to the built-in's parameters and turns constant arguments
// into op attributes (axes, dtypes, shapes — a run-time int in a shape becomes a symbolic dim
// plus an operand; BuiltinArgs.h, where arity and keyword errors are reported once for all
// built-ins) and lets the registry's type rule do the rest. The plain builtins (exp, maximum,
// matmul, ...) come from the op table: its rows marked Builtin. grad, value_and_grad and checkpoint
// make function values; save/load flatten and re-nest tuples of tensors.
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/BuiltinArgs.h"

namespace dlm::sema {

namespace {

/// A number literal (possibly negated) in a tensor literal.
Const literalValue(const Expr *e) {
  if (auto *i = llvm::dyn_cast<IntLiteralExpr>(e))
    return i->getValue();
  if (auto *f = llvm::dyn_cast<FloatLiteralExpr>(e))
    return f->getValue();
  if (auto *b = llvm::dyn_cast<BoolLiteralExpr>(e))
    return b->getValue();
  if (auto *u = llvm::dyn_cast<UnaryExpr>(e); u && u->getOp() == UnaryOp::Neg) {
    Const c = literalValue(u->getOperand());
    if (auto *i = std::get_if<int64_t>(&c))
      return -*i;
    if (auto *f = std::get_if<double>(&c))
      return -*f;
  }
  return {};
}

struct LiteralScan {
  Shape shape;
  std::vector<double> values;
  bool anyFloat = false, anyInt = false;
};

bool scanLiteral(Sema &s, const Expr *e, size_t level, LiteralScan &out) {
  auto *list = llvm::dyn_cast<ListExpr>(e);
  auto *tuple = llvm::dyn_cast<TupleExpr>(e);
  if (list || tuple) {
    const auto &elems = list ? list->getElements() : tuple->getElements();
    int64_t n = int64_t(elems.size());
    bool fresh = level == out.shape.size() && out.values.empty();
    if (fresh) {
      out.shape.push_back(Dim::fixed(n));
    } else if (level >= out.shape.size() || out.shape[level].size() != n) {
      s.error(e->getRange(), "tensor(): ragged nested list (" + std::to_string(n) +
                                 " elements here, " +
                                 (level < out.shape.size() ? out.shape[level].str() : "a number") +
                                 " elsewhere at this depth)");
      return false;
    }
    for (const Expr *x : elems)
      if (!scanLiteral(s, x, level + 1, out))
        return false;
    return true;
  }
  if (level != out.shape.size()) {
    s.error(e->getRange(), "tensor(): ragged nested list (a number where a list is expected)");
    return false;
  }
  Const c = literalValue(e);
  if (auto *i = std::get_if<int64_t>(&c)) {
    out.values.push_back(double(*i));
    out.anyInt = true;
  } else if (auto *f = std::get_if<double>(&c)) {
    out.values.push_back(*f);
    out.anyFloat = true;
  } else if (auto *b = std::get_if<bool>(&c)) {
    out.values.push_back(*b ? 1.0 : 0.0);
  } else {
    s.error(e->getRange(), "tensor(): elements must be number literals");
    return false;
  }
  return true;
}

using Handler = Operand (*)(Sema &, CallArgs &, const Bound &);

struct BuiltinInfo {
  Params params;
  Handler handler;
  bool method; ///< callable as x.name(...)
};

/// A plain builtin of one operand: applied to every leaf of a tuple.
Operand unaryOp(Sema &s, CallArgs &a, const Bound &b) {
  return s.mapLeaves(opKindNamed(a.calleeName).value(), *b.get("x"), a.loc);
}

/// A plain builtin of two operands.
Operand binaryOpB(Sema &s, CallArgs &a, const Bound &b) {
  return s.emitOp(a.calleeName, {*b.get("a"), *b.get("b")}, {}, a.loc);
}

Operand reduceOp(Sema &s, CallArgs &a, const Bound &b) {
  Attrs attrs;
  std::vector<int64_t> axes;
  if (const Operand *ax = b.get("axis")) {
    auto v = constInts(s, a, *ax, "axis");
    if (!v)
      return s.poison();
    axes = *v;
  }
  bool keep = false;
  if (const Operand *k = b.get("keepdims")) {
    auto v = constBool(s, a, *k, "keepdims");
    if (!v)
      return s.poison();
    keep = *v;
  }
  if (a.calleeName == "argmax") {
    if (axes.size() > 1) {
      errorAt(s, *b.get("axis"), a, "'axis' of 'argmax' must be a single int");
      return s.poison();
    }
    if (!axes.empty())
      attrs["axis"] = axes[0];
  } else {
    attrs["axes"] = axes;
  }
  attrs["keepdims"] = keep;
  return s.emitOp(a.calleeName, {*b.get("x")}, attrs, a.loc);
}

/// An op whose only attribute is the int parameter `param` (required when `otherwise` is unset).
Operand withIntAttr(Sema &s, CallArgs &a, const Bound &b, const char *param,
                    std::optional<int64_t> otherwise) {
  std::optional<int64_t> v = otherwise;
  if (const Operand *o = b.get(param))
    v = constInt(s, a, *o, param);
  if (!v)
    return s.poison();
  Attrs attrs;
  attrs[param] = *v;
  return s.emitOp(a.calleeName, {*b.get("x")}, attrs, a.loc);
}

Operand softmaxOp(Sema &s, CallArgs &a, const Bound &b) { return withIntAttr(s, a, b, "axis", -1); }
Operand poolOp(Sema &s, CallArgs &a, const Bound &b) {
  return withIntAttr(s, a, b, "k", std::nullopt);
}
Operand axisOp(Sema &s, CallArgs &a, const Bound &b) {
  return withIntAttr(s, a, b, "axis", std::nullopt);
}

Operand whereOp(Sema &s, CallArgs &a, const Bound &b) {
  return s.emitOp(dlm::OpKind::Where, {*b.get("cond"), *b.get("a"), *b.get("b")}, {}, a.loc);
}

Operand clipOp(Sema &s, CallArgs &a, const Bound &b) {
  return s.emitOp(dlm::OpKind::Clip, {*b.get("x"), *b.get("lo"), *b.get("hi")}, {}, a.loc);
}

Operand crossEntropy(Sema &s, CallArgs &a, const Bound &b) {
  return s.emitOp(dlm::OpKind::CrossEntropy, {*b.get("logits"), *b.get("labels")}, {}, a.loc);
}

Operand conv2d(Sema &s, CallArgs &a, const Bound &b) {
  Attrs attrs;
  for (const char *p : {"stride", "padding"}) {
    int64_t v = std::string(p) == "stride" ? 1 : 0;
    if (const Operand *o = b.get(p)) {
      auto c = constInt(s, a, *o, p);
      if (!c)
        return s.poison();
      v = *c;
    }
    attrs[p] = v;
  }
  return s.emitOp(dlm::OpKind::Conv2d, {*b.get("x"), *b.get("w")}, attrs, a.loc);
}

Operand dropout(Sema &s, CallArgs &a, const Bound &b) {
  auto p = constFloat(s, a, *b.get("p"), "p");
  if (!p)
    return s.poison();
  if (*p < 0 || *p >= 1) {
    errorAt(s, *b.get("p"), a,
            "dropout probability must be in [0, 1), found " + attrStr(AttrValue(*p)));
    return s.poison();
  }
  Attrs attrs;
  attrs["p"] = *p;
  return s.emitOp(dlm::OpKind::Dropout, {*b.get("x")}, attrs, a.loc);
}

Operand creation(Sema &s, CallArgs &a, const Bound &b) {
  auto dtype = dtypeArg(s, a, b, DType::F32);
  Shape shape;
  std::vector<Value *> dynamic;
  if (!dtype || !shapeArgs(s, a, b.rest, shape, dynamic, false))
    return s.poison();
  Attrs attrs;
  attrs["shape"] = shape;
  attrs["dtype"] = *dtype;
  return s.emitOp(a.calleeName, {}, attrs, a.loc, dynamic);
}

Operand full(Sema &s, CallArgs &a, const Bound &b) {
  auto dtype = dtypeArg(s, a, b, DType::F32);
  Shape shape;
  std::vector<Value *> dynamic;
  if (!dtype || !shapeArgs(s, a, {*b.get("shape")}, shape, dynamic, false))
    return s.poison();
  Attrs attrs;
  attrs["shape"] = shape;
  attrs["dtype"] = *dtype;
  return s.emitOp(dlm::OpKind::Full, {*b.get("value")}, attrs, a.loc, dynamic);
}

Operand eye(Sema &s, CallArgs &a, const Bound &b) {
  auto dtype = dtypeArg(s, a, b, DType::F32);
  auto n = constInt(s, a, *b.get("n"), "n");
  if (!dtype || !n)
    return s.poison();
  Attrs attrs;
  attrs["n"] = *n;
  attrs["dtype"] = *dtype;
  return s.emitOp(dlm::OpKind::Eye, {}, attrs, a.loc);
}

/// arange(n, dtype=f32) and randperm(n, dtype=i64): a vector of length n (a constant or a
/// run-time int), 0 .. n-1 in order or in a random order from the RNG stream.
Operand vectorOfN(Sema &s, CallArgs &a, const Bound &b, DType otherwise) {
  auto dtype = dtypeArg(s, a, b, otherwise);
  Shape shape;
  std::vector<Value *> dynamic;
  if (!dtype || !shapeArgs(s, a, {*b.get("n")}, shape, dynamic, false))
    return s.poison();
  Attrs attrs;
  attrs["shape"] = shape;
  attrs["dtype"] = *dtype;
  return s.emitOp(a.calleeName, {}, attrs, a.loc, dynamic);
}

Operand arange(Sema &s, CallArgs &a, const Bound &b) { return vectorOfN(s, a, b, DType::F32); }
Operand randperm(Sema &s, CallArgs &a, const Bound &b) { return vectorOfN(s, a, b, DType::I64); }

/// gather(x, indices, axis=0): x.take(indices, axis).
Operand gather(Sema &s, CallArgs &a, const Bound &b) {
  std::optional<int64_t> axisArg = optionalAxis(s, a, b);
  if (!axisArg)
    return s.poison();
  int64_t axis = *axisArg;
  Attrs attrs;
  attrs["axis"] = axis;
  return s.emitOp(dlm::OpKind::Gather, {*b.get("x"), *b.get("indices")}, attrs, a.loc);
}

/// A builtin over the tensor and scalar leaves of its variadic values (`print(...)`,
/// `memory_stats(...)`): emits `op` on them; a function, module, dtype or none among them is
/// the error "<name> <problem> X".
Operand variadicLeavesOp(Sema &s, CallArgs &a, const Bound &b, dlm::OpKind op, llvm::StringRef name,
                         llvm::StringRef problem,
                         Attrs (*attrsOf)(const std::vector<Operand> &) = nullptr) {
  std::vector<Operand> leaves;
  for (const Operand &o : b.rest) {
    if (o.callee || o.module || o.dtype || o.type.kind() == Type::Kind::None) {
      errorAt(s, o, a,
              (name + problem).str() +
                  (o.type.kind() == Type::Kind::None ? std::string("none") : describeOperand(o)));
      return s.poison();
    }
    flatten(s, o, a.loc, leaves);
  }
  return s.emitOp(op, leaves, attrsOf ? attrsOf(leaves) : Attrs{}, a.loc);
}

/// memory_stats(after...) -> (live bytes, peak bytes), read once every leaf of `after` exists.
Operand memoryStats(Sema &s, CallArgs &a, const Bound &b) {
  return variadicLeavesOp(s, a, b, dlm::OpKind::MemoryStats, "memory_stats()",
                          " waits for values, found ");
}

Operand progress(Sema &s, CallArgs &a, const Bound &b) {
  return s.emitOp(dlm::OpKind::Progress, {*b.get("done"), *b.get("total")}, {}, a.loc);
}

Operand seed(Sema &s, CallArgs &a, const Bound &b) {
  return s.emitOp(dlm::OpKind::Seed, {*b.get("n")}, {}, a.loc);
}

/// rank(), world_size(), barrier(): the op of the same name, without operands.
Operand nullaryOp(Sema &s, CallArgs &a, const Bound &) {
  return s.emitOp(a.calleeName, {}, {}, a.loc);
}

/// allreduce(x, op="sum"), broadcast(x, root=0), allgather(x): one op per tensor or number
/// leaf of x (a nested tuple keeps its structure), in the order of the leaves; the optimizer's
/// bucketing fuses small ones (docs/dist.md).
Operand collective(Sema &s, CallArgs &a, const Bound &b) {
  Attrs attrs;
  dlm::OpKind op = a.calleeName == "allreduce"   ? dlm::OpKind::AllReduce
                   : a.calleeName == "broadcast" ? dlm::OpKind::Broadcast
                                                 : dlm::OpKind::AllGather;
  if (const Operand *reduce = b.get("op")) {
    Const c = Sema::constOf(reduce->value);
    auto *name = std::get_if<std::string>(&c);
    if (!name) {
      errorAt(s, *reduce, a,
              "'op' of 'allreduce' must be a constant str, found " + describeOperand(*reduce));
      return s.poison();
    }
    attrs["op"] = *name;
  } else if (op == dlm::OpKind::AllReduce) {
    attrs["op"] = std::string("sum");
  }
  if (const Operand *root = b.get("root")) {
    auto r = constInt(s, a, *root, "root");
    if (!r)
      return s.poison();
    attrs["root"] = *r;
  } else if (op == dlm::OpKind::Broadcast) {
    attrs["root"] = int64_t(0);
  }
  const Operand &x = *b.get("x");
  if (x.callee || x.module || x.dtype || x.type.kind() == Type::Kind::None) {
    errorAt(s, x, a,
            "'" + a.calleeName + "' needs a tensor, a number or a tuple of them, found " +
                (x.type.kind() == Type::Kind::None ? std::string("none") : describeOperand(x)));
    return s.poison();
  }
  if (!x.type.isTuple())
    return s.emitOp(op, {x}, attrs, a.loc);
  std::vector<Operand> leaves, results;
  flatten(s, x, a.loc, leaves);
  for (const Operand &leaf : leaves) {
    results.push_back(s.emitOp(op, {leaf}, attrs, a.loc));
    if (results.back().isError())
      return results.back();
  }
  size_t next = 0;
  return renestLeaves(s, x.type, results, next, a.loc);
}

Operand tensorLiteral(Sema &s, CallArgs &a, const Bound &b) {
  const Operand *data = b.get("data");
  LiteralScan scan;
  if (!data->expr || !scanLiteral(s, data->expr, 0, scan))
    return s.poison();
  DType def = scan.anyFloat ? DType::F32 : scan.anyInt ? DType::I64 : DType::Bool;
  auto dtype = dtypeArg(s, a, b, def);
  if (!dtype)
    return s.poison();
  Attrs attrs;
  attrs["value"] = scan.values;
  attrs["shape"] = scan.shape;
  attrs["dtype"] = *dtype;
  return s.emitOp(dlm::OpKind::Const, {}, attrs, a.loc);
}

/// float(x), int(x), bool(x): a number or a 0-d tensor as the language's scalar, converted as
/// Python converts (int() truncates toward zero, bool() is x != 0). The graph value stays a
/// 0-d f64/i64/bool; what changes is the type: print shows a plain number and it meets tensors
/// as a Python scalar does. A tensor goes through a cast to that dtype, then an Identity that
/// carries the scalar type, so the cast's gradient sees tensors on both sides.
Operand toScalar(Sema &s, CallArgs &a, const Bound &b) {
  const Operand &x = *b.get("x");
  bool toFloat = a.calleeName == "float", toInt = a.calleeName == "int";
  Type want = toFloat ? Type::floatTy() : toInt ? Type::intTy() : Type::boolTy();
  DType to = toFloat ? DType::F64 : toInt ? DType::I64 : DType::Bool;
  bool number = x.type.kind() == Type::Kind::Int || x.type.kind() == Type::Kind::Float ||
                x.type.kind() == Type::Kind::Bool;
  bool zeroD = x.type.isTensor() && x.type.rank() == 0;
  if (x.callee || x.module || x.dtype || !(number || zeroD)) {
    std::string hint = x.type.isTensor() && !x.callee
                           ? "; for every element use x.astype(" + std::string(dtypeName(to)) + ")"
                           : "";
    errorAt(s, x, a,
            a.calleeName + "() needs a number or a 0-d tensor, found " + describeOperand(x) + hint);
    return s.poison();
  }
  if (x.type == want)
    return x;
  bool fromFloat = x.type.kind() == Type::Kind::Float || (zeroD && isFloat(x.type.dtype()));
  if (toInt && fromFloat) {
    // Python raises on int(nan), int(inf) and on values past i64 (no silent 0 or saturation):
    // |x| < 2^63 is false for all three, so the program stops with this message at the call.
    Operand magnitude = s.emitOp(dlm::OpKind::Abs, {x}, {}, a.loc);
    Operand ok = s.emitOp(dlm::OpKind::Lt,
                          {magnitude, s.constant(Const(9223372036854775808.0), a.loc)}, {}, a.loc);
    auto [line, col] = s.diags.getLineAndColumn(a.loc.Start);
    (void)col;
    Attrs check;
    check["message"] =
        std::string("int() of a float that is NaN, infinite or outside the int range");
    check["location"] = s.diags.getBufferName(a.loc.Start).str() + ":" + std::to_string(line);
    s.emitOp(dlm::OpKind::Assert, {ok}, check, a.loc);
  }
  Operand v = x;
  if (number || x.type.dtype() != to) {
    Attrs attrs;
    attrs["dtype"] = to;
    v = s.emitOp(dlm::OpKind::Cast, {x}, attrs, a.loc);
  }
  if (number || !v.value)
    return v;
  Operand r = s.emitOp(dlm::OpKind::Identity, {v}, {}, a.loc);
  if (r.value)
    r.value->type = r.type = want;
  return r;
}

Operand astype(Sema &s, CallArgs &a, const Bound &b) {
  const Operand *d = b.get("dtype");
  if (!d->dtype) {
    errorAt(s, *d, a,
            "'astype' needs a dtype (f32, f64, i32, i64, bool), found " + describeOperand(*d));
    return s.poison();
  }
  Attrs attrs;
  attrs["dtype"] = *d->dtype;
  return s.emitOp(dlm::OpKind::Cast, {*b.get("x")}, attrs, a.loc);
}

Operand reshape(Sema &s, CallArgs &a, const Bound &b) {
  Shape shape;
  std::vector<Value *> dynamic;
  if (!shapeArgs(s, a, b.rest, shape, dynamic, true))
    return s.poison();
  if (shape.empty() && b.rest.empty()) {
    s.error(a.loc, "'reshape' needs the new dimensions");
    return s.poison();
  }
  Attrs attrs;
  attrs["shape"] = shape;
  return s.emitOp(dlm::OpKind::Reshape, {*b.get("x")}, attrs, a.loc, dynamic);
}

Operand transpose(Sema &s, CallArgs &a, const Bound &b) {
  Attrs attrs;
  if (const Operand *ax = b.get("axes")) {
    auto v = constInts(s, a, *ax, "axes");
    if (!v)
      return s.poison();
    attrs["perm"] = *v;
  }
  return s.emitOp(dlm::OpKind::Transpose, {*b.get("x")}, attrs, a.loc);
}

Operand concatStack(Sema &s, CallArgs &a, const Bound &b) {
  const Operand &xs = *b.get("xs");
  if (!xs.type.isTuple()) {
    errorAt(s, xs, a,
            "'" + a.calleeName + "' takes a tuple of tensors, found " + describeOperand(xs));
    return s.poison();
  }
  std::optional<int64_t> axisArg = optionalAxis(s, a, b);
  if (!axisArg)
    return s.poison();
  int64_t axis = *axisArg;
  std::vector<Operand> parts;
  for (size_t i = 0; i < xs.type.elements().size(); ++i) {
    parts.push_back(s.getElement(xs, i, a.loc));
    parts.back().expr = xs.expr;
  }
  Attrs attrs;
  attrs["axis"] = axis;
  return s.emitOp(a.calleeName, parts, attrs, a.loc);
}

/// split(x, n_or_sizes, axis=0) and chunk(x, n, axis=0).
Operand splitChunk(Sema &s, CallArgs &a, const Bound &b) {
  const Operand &x = *b.get("x");
  if (!x.type.isTensor()) {
    errorAt(s, x, a, "'" + a.calleeName + "' needs a Tensor, found " + describeOperand(x));
    return s.poison();
  }
  std::optional<int64_t> axisArg = optionalAxis(s, a, b);
  if (!axisArg)
    return s.poison();
  int64_t axis = *axisArg;
  int64_t rank = int64_t(x.type.rank());
  if (axis < -rank || axis >= rank) {
    s.error(a.loc,
            "axis " + std::to_string(axis) + " is out of range for " + x.type.str() + " (rank " +
                std::to_string(rank) + ")",
            {x});
    return s.poison();
  }
  const Dim &d = x.type.shape()[size_t(axis < 0 ? axis + rank : axis)];
  const Operand &parts = *b.get(a.calleeName == "chunk" ? "n" : "sizes");
  std::vector<int64_t> sizes;
  if (parts.type.isTuple()) {
    auto v = constInts(s, a, parts, "sizes");
    if (!v)
      return s.poison();
    sizes = *v;
  } else {
    auto n = constInt(s, a, parts, a.calleeName == "chunk" ? "n" : "sizes");
    if (!n)
      return s.poison();
    if (*n <= 0 || !d.isStatic()) {
      errorAt(s, parts, a,
              !d.isStatic() ? "'" + a.calleeName + "' into equal parts needs a static dim; " +
                                  x.type.str() + " has " + d.str()
                            : "'" + a.calleeName + "' needs a positive number of parts");
      return s.poison();
    }
    int64_t each = a.calleeName == "chunk" ? (d.size() + *n - 1) / *n : d.size() / *n;
    if (a.calleeName == "split" && d.size() % *n != 0) {
      errorAt(s, parts, a,
              "cannot split " + d.str() + " elements of " + x.type.str() + " into " +
                  std::to_string(*n) + " equal parts");
      return s.poison();
    }
    for (int64_t left = d.size(); left > 0; left -= each)
      sizes.push_back(std::min(each, left));
  }
  Attrs attrs;
  attrs["axis"] = axis;
  attrs["sizes"] = sizes;
  return s.emitOp(dlm::OpKind::Split, {x}, attrs, a.loc);
}

Operand broadcastTo(Sema &s, CallArgs &a, const Bound &b) {
  Shape shape;
  std::vector<Value *> dynamic;
  if (!shapeArgs(s, a, {*b.get("shape")}, shape, dynamic, false))
    return s.poison();
  Attrs attrs;
  attrs["shape"] = shape;
  return s.emitOp(dlm::OpKind::BroadcastTo, {*b.get("x")}, attrs, a.loc, dynamic);
}

Operand lenOp(Sema &s, CallArgs &a, const Bound &b) {
  const Operand &x = *b.get("x");
  if (x.type.isTuple())
    return s.constant(int64_t(x.type.elements().size()), a.loc);
  if (x.type.kind() == Type::Kind::Str) {
    Const c = Sema::constOf(x.value);
    if (auto *str = std::get_if<std::string>(&c))
      return s.constant(int64_t(str->size()), a.loc);
  }
  if (!x.type.isTensor() || x.callee || x.type.rank() == 0) {
    errorAt(s, x, a,
            "len() needs a tuple or a tensor with at least one dimension, found " +
                describeOperand(x));
    return s.poison();
  }
  return s.dimOf(x, 0, a.loc);
}

Operand sizeOp(Sema &s, CallArgs &a, const Bound &b) {
  const Operand &x = *b.get("x");
  if (!x.type.isTensor() || x.callee) {
    errorAt(s, x, a, "size() needs a Tensor, found " + describeOperand(x));
    return s.poison();
  }
  if (auto n = x.type.staticNumElements())
    return s.constant(*n, a.loc);
  Operand total = s.constant(int64_t(1), a.loc);
  for (size_t i = 0; i < x.type.rank(); ++i)
    total = s.binaryOp(BinaryOp::Mul, total, s.dimOf(x, i, a.loc), a.loc, a.loc);
  return total;
}

/// print's `scalars` flags: the graph carries an int, float or bool as a 0-d i64/f64/bool
/// tensor and print reads such a value as a plain number unless told otherwise, so when a
/// genuine 0-d tensor of those dtypes is printed, one flag per operand says which operands are
/// the language's scalars (runtime/Print.h). Otherwise no attribute (the common case).
Attrs printScalars(const std::vector<Operand> &leaves) {
  auto isScalar = [](const Type &t) {
    return t.kind() == Type::Kind::Int || t.kind() == Type::Kind::Float ||
           t.kind() == Type::Kind::Bool;
  };
  auto looksScalar = [](const Type &t) {
    return t.isTensor() && t.rank() == 0 &&
           (t.dtype() == DType::F64 || t.dtype() == DType::I64 || t.dtype() == DType::Bool);
  };
  if (std::none_of(leaves.begin(), leaves.end(),
                   [&](const Operand &o) { return looksScalar(o.type); }))
    return {};
  std::vector<int64_t> flags;
  for (const Operand &o : leaves)
    flags.push_back(isScalar(o.type) ? 1 : 0);
  Attrs attrs;
  attrs["scalars"] = flags;
  return attrs;
}

Operand printOp(Sema &s, CallArgs &a, const Bound &b) {
  return variadicLeavesOp(s, a, b, dlm::OpKind::Print, "print()", " cannot print ", printScalars);
}

/// The names= of save() and load(): a str per tensor of the value (a str alone for one tensor,
/// else a tuple of strs in the order of the value's leaves), appended to `operands`; the count in
/// `attrs` ("names"). True when there are none; false after reporting an error.
bool tensorNames(Sema &s, CallArgs &a, const Bound &b, size_t tensors,
                 std::vector<Operand> &operands, Attrs &attrs) {
  const Operand *names = b.get("names");
  if (!names)
    return true;
  std::vector<Operand> flat;
  flatten(s, *names, a.loc, flat);
  for (const Operand &n : flat)
    if (n.type.kind() != Type::Kind::Str || n.callee) {
      errorAt(s, *names, a,
              "names= must be a str or a tuple of strs, one per tensor, found " +
                  describeOperand(*names));
      return false;
    }
  if (flat.size() != tensors) {
    errorAt(s, *names, a,
            "names= gives " + std::to_string(flat.size()) + " name" +
                (flat.size() == 1 ? "" : "s") + " for " + std::to_string(tensors) + " tensor" +
                (tensors == 1 ? "" : "s"));
    return false;
  }
  operands.insert(operands.end(), flat.begin(), flat.end());
  attrs["names"] = int64_t(flat.size());
  return true;
}

Operand save(Sema &s, CallArgs &a, const Bound &b) {
  const Operand &v = *b.get("value");
  std::vector<Operand> leaves;
  flatten(s, v, a.loc, leaves);
  for (const Operand &l : leaves)
    if (!l.type.isTensor() || l.callee) {
      errorAt(s, v, a, "save() writes a tensor or a tuple of tensors, found " + describeOperand(v));
      return s.poison();
    }
  std::vector<Operand> operands = {*b.get("path")};
  Attrs attrs;
  if (!tensorNames(s, a, b, leaves.size(), operands, attrs))
    return s.poison();
  operands.insert(operands.end(), leaves.begin(), leaves.end());
  return s.emitOp(dlm::OpKind::Save, operands, attrs, a.loc);
}

Operand load(Sema &s, CallArgs &a, const Bound &b) {
  const Operand *like = b.get("like");
  if (!like) {
    s.error(a.loc, "load() needs like=VALUE: a tensor or tuple of tensors with the types to read "
                   "(the file's contents are only known at run time)");
    return s.poison();
  }
  std::vector<Type> leaves;
  flattenTypes(like->type, leaves);
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
  for (const Type &t : leaves) {
    if (!t.isTensor() || like->callee) {
      errorAt(s, *like, a,
              "'like' of load() must be a tensor or a tuple of tensors, found " +
                  describeOperand(*like));
      return s.poison();
    }
    dtypes.push_back(t.dtype());
    shapes.push_back(t.shape());
  }
  Attrs attrs;
  attrs["dtypes"] = dtypes;
  attrs["shapes"] = shapes;
  std::vector<Operand> operands = {*b.get("path")};
  if (!tensorNames(s, a, b, leaves.size(), operands, attrs))
    return s.poison();
  Operand flat = s.emitOp(dlm::OpKind::Load, operands, attrs, a.loc);
  if (flat.isError())
    return flat;
  size_t next = 0;
  return renest(s, like->type, flat, next, a.loc);
}

/// read_fashion_mnist(split), read_idx(path, rank), read_csv(path, dtype=f32): the dataset
/// readers stdlib/data.dlm wraps.
Operand readData(Sema &s, CallArgs &a, const Bound &b) {
  Attrs attrs;
  if (a.calleeName == "read_fashion_mnist")
    return s.emitOp(dlm::OpKind::FashionMnist, {*b.get("split")}, attrs, a.loc);
  if (a.calleeName == "read_idx") {
    auto rank = constInt(s, a, *b.get("rank"), "rank");
    if (!rank)
      return s.poison();
    attrs["rank"] = *rank;
    return s.emitOp(dlm::OpKind::LoadIdx, {*b.get("path")}, attrs, a.loc);
  }
  auto dtype = dtypeArg(s, a, b, DType::F32);
  if (!dtype)
    return s.poison();
  attrs["dtype"] = *dtype;
  return s.emitOp(dlm::OpKind::LoadCsv, {*b.get("path")}, attrs, a.loc);
}

Operand stopGradient(Sema &s, CallArgs &a, const Bound &b) {
  return s.emitOp(dlm::OpKind::StopGradient, {*b.get("x")}, {}, a.loc);
}

Operand gradOf(Sema &s, CallArgs &a, const Bound &b) {
  const Operand &f = *b.get("f");
  if (!f.callee) {
    errorAt(s, f, a, "'" + a.calleeName + "' needs a function, found " + describeOperand(f));
    return s.poison();
  }
  auto g = std::make_shared<GradCallable>();
  g->inner = f.callee;
  g->withValue = a.calleeName == "value_and_grad";
  g->loc = a.loc;
  g->argnums = {0};
  if (const Operand *an = b.get("argnums")) {
    auto v = constInts(s, a, *an, "argnums");
    if (!v)
      return s.poison();
    g->argnums = *v;
    g->argnumsIsTuple = an->type.isTuple();
    if (v->empty()) {
      errorAt(s, *an, a, "'argnums' must name at least one argument");
      return s.poison();
    }
  }
  if (auto fn = std::dynamic_pointer_cast<const FnCallable>(f.callee)) {
    size_t n = fn->def->getParams().size();
    for (int64_t i : g->argnums)
      if (i < 0 || size_t(i) >= n) {
        const Operand *an = b.get("argnums");
        s.error(an ? where(*an, a) : a.loc, "argnums " + std::to_string(i) + " is out of range: '" +
                                                fn->qualifiedName + "' takes " + std::to_string(n) +
                                                " argument" + (n == 1 ? "" : "s"));
        s.note(fn->def->getNameRange(), "'" + fn->qualifiedName + "' is defined here");
        return s.poison();
      }
  }
  Operand r;
  r.callee = g;
  r.type = Type::function(g);
  return r;
}

Operand checkpointOf(Sema &s, CallArgs &a, const Bound &b) {
  const Operand &f = *b.get("f");
  if (!f.callee) {
    errorAt(s, f, a, "'checkpoint' needs a function, found " + describeOperand(f));
    return s.poison();
  }
  auto c = std::make_shared<CheckpointCallable>();
  c->inner = f.callee;
  Operand r;
  r.callee = c;
  r.type = Type::function(c);
  return r;
}

Operand rangeOutsideFor(Sema &s, CallArgs &a, const Bound &) {
  s.error(a.loc, "range() can only be the iterable of a for loop");
  return s.poison();
}

const std::map<std::string, BuiltinInfo> &table() {
  static const std::map<std::string, BuiltinInfo> t = [] {
    std::map<std::string, BuiltinInfo> m;
    // The plain builtins: an op of the table called by its name (ops/Ops.def `Builtin`).
    for (dlm::OpKind k : allOpKinds())
      if (opHas(k, opflag::Builtin)) {
        const OpInfo &op = opInfo(k);
        m[op.name] = {op.operands, op.operands.size() == 1 ? unaryOp : binaryOpB, true};
      }
    for (const char *n : {"sum", "mean", "max", "min", "logsumexp", "norm", "argmax"})
      m[n] = {{"x", "axis=", "keepdims="}, reduceOp, true};
    m["where"] = {{"cond", "a", "b"}, whereOp, false};
    m["clip"] = {{"x", "lo", "hi"}, clipOp, true};
    m["softmax"] = {{"x", "axis="}, softmaxOp, true};
    m["log_softmax"] = {{"x", "axis="}, softmaxOp, true};
    m["cross_entropy"] = {{"logits", "labels"}, crossEntropy, false};
    m["conv2d"] = {{"x", "w", "stride=", "padding="}, conv2d, false};
    m["max_pool2d"] = {{"x", "k"}, poolOp, true};
    m["avg_pool2d"] = {{"x", "k"}, poolOp, true};
    m["dropout"] = {{"x", "p"}, dropout, true};
    for (const char *n : {"zeros", "ones", "randn", "rand"})
      m[n] = {{"*dims", "dtype="}, creation, false};
    m["full"] = {{"shape", "value", "dtype="}, full, false};
    m["eye"] = {{"n", "dtype="}, eye, false};
    m["arange"] = {{"n", "dtype="}, arange, false};
    m["seed"] = {{"n"}, seed, false};
    m["randperm"] = {{"n", "dtype="}, randperm, false};
    m["gather"] = {{"x", "indices", "axis="}, gather, true};
    m["memory_stats"] = {{"*after"}, memoryStats, false};
    m["progress"] = {{"done", "total"}, progress, false};
    for (const char *n : {"rank", "world_size", "barrier"})
      m[n] = {{}, nullaryOp, false};
    m["allreduce"] = {{"x", "op="}, collective, false};
    m["broadcast"] = {{"x", "root="}, collective, false};
    m["allgather"] = {{"x"}, collective, false};
    m["tensor"] = {{"data", "dtype="}, tensorLiteral, false};
    m["astype"] = {{"x", "dtype"}, astype, true};
    for (const char *n : {"float", "int", "bool"})
      m[n] = {{"x"}, toScalar, false};
    m["reshape"] = {{"x", "*dims"}, reshape, true};
    m["transpose"] = {{"x", "axes="}, transpose, true};
    m["concat"] = {{"xs", "axis="}, concatStack, false};
    m["stack"] = {{"xs", "axis="}, concatStack, false};
    m["split"] = {{"x", "sizes", "axis="}, splitChunk, true};
    m["chunk"] = {{"x", "n", "axis="}, splitChunk, true};
    m["broadcast_to"] = {{"x", "shape"}, broadcastTo, true};
    m["expand_dims"] = {{"x", "axis"}, axisOp, true};
    m["squeeze"] = {{"x", "axis"}, axisOp, true};
    m["len"] = {{"x"}, lenOp, false};
    m["size"] = {{"x"}, sizeOp, true};
    m["print"] = {{"*values"}, printOp, false};
    m["save"] = {{"path", "value", "names="}, save, false};
    m["load"] = {{"path", "like=", "names="}, load, false};
    m["stop_gradient"] = {{"x"}, stopGradient, true};
    m["read_fashion_mnist"] = {{"split"}, readData, false};
    m["read_idx"] = {{"path", "rank"}, readData, false};
    m["read_csv"] = {{"path", "dtype="}, readData, false};
    m["grad"] = {{"f", "argnums="}, gradOf, false};
    m["value_and_grad"] = {{"f", "argnums="}, gradOf, false};
    m["checkpoint"] = {{"f"}, checkpointOf, false};
    m["range"] = {{"*args"}, rangeOutsideFor, false};
    return m;
  }();
  return t;
}

} // namespace

bool Sema::isBuiltin(llvm::StringRef n) { return table().count(n.str()) != 0; }

std::vector<std::string> Sema::builtinNames() {
  std::vector<std::string> out;
  for (const auto &[n, info] : table())
    out.push_back(n);
  return out;
}

bool Sema::isMethod(llvm::StringRef n) const {
  auto it = table().find(n.str());
  return it != table().end() && it->second.method;
}

Operand Sema::callBuiltin(const std::string &n, CallArgs &args) {
  const BuiltinInfo &info = table().at(n);
  args.calleeName = n;
  Bound bound;
  if (!bindBuiltin(*this, args, info.params, bound))
    return poison();
  return info.handler(*this, args, bound);
}

} // namespace dlm::sema
