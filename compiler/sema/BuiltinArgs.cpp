//===- compiler/sema/BuiltinArgs.cpp - Binding the arguments of built-ins -===//
#include "compiler/sema/BuiltinArgs.h"

namespace dlm::sema {

bool bindBuiltin(Sema &s, CallArgs &a, const Params &params, Bound &out) {
  const std::string &fn = a.calleeName;
  std::vector<std::string> names;
  size_t required = 0;
  bool variadic = false;
  for (const std::string &p : params) {
    if (p[0] == '*') {
      variadic = true;
      continue;
    }
    bool optional = p.back() == '=';
    names.push_back(optional ? p.substr(0, p.size() - 1) : p);
    if (!optional)
      ++required;
  }
  // Positional arguments fill the parameters before a "*rest", then the rest.
  size_t fixedBeforeRest = 0;
  for (const std::string &p : params) {
    if (p[0] == '*')
      break;
    ++fixedBeforeRest;
  }
  size_t npos = a.positional.size();
  size_t maxPos = variadic ? SIZE_MAX : names.size();
  if (npos > maxPos) {
    bool exact = required == names.size();
    s.error(a.loc, "'" + fn + "' takes " + (exact ? "" : "at most ") +
                       std::to_string(names.size()) + " argument" + (names.size() == 1 ? "" : "s") +
                       ", " + std::to_string(npos) + " given");
    return false;
  }
  for (size_t i = 0; i < npos; ++i) {
    if (variadic && i >= fixedBeforeRest)
      out.rest.push_back(a.positional[i]);
    else
      out.args[names[i]] = a.positional[i];
  }
  bool ok = true;
  for (auto &[kw, val] : a.keywords) {
    if (std::find(names.begin(), names.end(), kw->name) == names.end()) {
      std::string guess = closestName(kw->name, names);
      s.error(kw->nameRange, "'" + fn + "' has no parameter named '" + kw->name + "'" +
                                 (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
      ok = false;
      continue;
    }
    if (out.args.count(kw->name)) {
      s.error(kw->nameRange, "argument '" + kw->name + "' of '" + fn + "' is given twice");
      ok = false;
      continue;
    }
    out.args[kw->name] = val;
  }
  for (const std::string &p : params) {
    if (p[0] == '*' || p.back() == '=' || out.args.count(p))
      continue;
    s.error(a.loc, "missing argument '" + p + "' in call to '" + fn + "'");
    ok = false;
  }
  return ok;
}

llvm::SMRange where(const Operand &o, const CallArgs &a) {
  return o.expr ? o.expr->getRange() : a.loc;
}

void errorAt(Sema &s, const Operand &o, const CallArgs &a, const std::string &message) {
  s.error(where(o, a), message, {o});
}

std::string describeOperand(const Operand &o) {
  if (o.callee)
    return "a function";
  if (o.module)
    return "a module";
  if (o.dtype)
    return "a dtype";
  return o.type.str();
}

std::optional<int64_t> constInt(Sema &s, const CallArgs &a, const Operand &o, const char *what) {
  if (auto c = Sema::intConst(o))
    return *c;
  errorAt(s, o, a,
          std::string("'") + what + "' of '" + a.calleeName + "' must be a constant int, found " +
              (o.type.kind() == Type::Kind::Int ? "a run-time int" : describeOperand(o)));
  return std::nullopt;
}

std::optional<int64_t> optionalAxis(Sema &s, const CallArgs &a, const Bound &b) {
  const Operand *o = b.get("axis");
  return o ? constInt(s, a, *o, "axis") : std::optional<int64_t>(0);
}

std::optional<std::vector<int64_t>> constInts(Sema &s, const CallArgs &a, const Operand &o,
                                              const char *what) {
  if (!o.type.isTuple()) {
    auto c = constInt(s, a, o, what);
    return c ? std::optional(std::vector<int64_t>{*c}) : std::nullopt;
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < o.type.elements().size(); ++i) {
    Operand e = s.getElement(o, i, where(o, a));
    e.expr = o.expr;
    auto c = constInt(s, a, e, what);
    if (!c)
      return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

std::optional<bool> constBool(Sema &s, const CallArgs &a, const Operand &o, const char *what) {
  Const c = Sema::constOf(o.value);
  if (auto *b = std::get_if<bool>(&c))
    return *b;
  errorAt(s, o, a,
          std::string("'") + what + "' of '" + a.calleeName + "' must be a constant bool, found " +
              describeOperand(o));
  return std::nullopt;
}

std::optional<double> constFloat(Sema &s, const CallArgs &a, const Operand &o, const char *what) {
  Const c = Sema::constOf(o.value);
  if (auto *d = std::get_if<double>(&c))
    return *d;
  if (auto *i = std::get_if<int64_t>(&c))
    return double(*i);
  errorAt(s, o, a,
          std::string("'") + what + "' of '" + a.calleeName +
              "' must be a constant number, found " + describeOperand(o));
  return std::nullopt;
}

std::optional<DType> dtypeArg(Sema &s, const CallArgs &a, const Bound &b, DType otherwise) {
  const Operand *o = b.get("dtype");
  if (!o)
    return otherwise;
  if (o->dtype)
    return *o->dtype;
  errorAt(s, *o, a,
          "'dtype' of '" + a.calleeName + "' must be a dtype (f32, f64, i32, i64, bool), found " +
              describeOperand(*o));
  return std::nullopt;
}

bool shapeArgs(Sema &s, const CallArgs &a, std::vector<Operand> dims, Shape &shape,
               std::vector<Value *> &dynamic, bool allowInfer) {
  if (dims.size() == 1 && dims[0].type.isTuple()) {
    Operand t = dims[0];
    dims.clear();
    for (size_t i = 0; i < t.type.elements().size(); ++i) {
      dims.push_back(s.getElement(t, i, where(t, a)));
      dims.back().expr = t.expr;
    }
  }
  for (const Operand &d : dims) {
    if (d.type.kind() != Type::Kind::Int) {
      errorAt(s, d, a,
              "a dimension of '" + a.calleeName + "' must be an int, found " + describeOperand(d));
      return false;
    }
    if (auto c = Sema::intConst(d)) {
      if (*c == -1 && allowInfer) {
        shape.push_back(inferDim());
        continue;
      }
      if (*c < 0) {
        errorAt(s, d, a, "negative dimension " + std::to_string(*c) + " in '" + a.calleeName + "'");
        return false;
      }
      shape.push_back(Dim::fixed(*c));
      continue;
    }
    auto sym = s.dimOfInt(d.value);
    shape.push_back(sym ? *sym : s.program->dims.fresh());
    dynamic.push_back(d.value);
  }
  return true;
}

void flatten(Sema &s, const Operand &o, llvm::SMRange loc, std::vector<Operand> &out) {
  if (!o.type.isTuple()) {
    out.push_back(o);
    return;
  }
  for (size_t i = 0; i < o.type.elements().size(); ++i) {
    Operand e = s.getElement(o, i, loc);
    e.expr = o.expr;
    flatten(s, e, loc, out);
  }
}

void flattenTypes(const Type &t, std::vector<Type> &out) {
  if (!t.isTuple()) {
    out.push_back(t);
    return;
  }
  for (const Type &e : t.elements())
    flattenTypes(e, out);
}

Operand renest(Sema &s, const Type &like, const Operand &flat, size_t &next, llvm::SMRange loc) {
  if (!like.isTuple())
    return s.getElement(flat, next++, loc);
  std::vector<Operand> elems;
  for (const Type &e : like.elements())
    elems.push_back(renest(s, e, flat, next, loc));
  return s.tupleExpr(elems, loc);
}

Operand renestLeaves(Sema &s, const Type &like, const std::vector<Operand> &leaves, size_t &next,
                     llvm::SMRange loc) {
  if (!like.isTuple())
    return leaves[next++];
  std::vector<Operand> elems;
  for (const Type &e : like.elements())
    elems.push_back(renestLeaves(s, e, leaves, next, loc));
  return s.tupleExpr(elems, loc);
}

} // namespace dlm::sema
