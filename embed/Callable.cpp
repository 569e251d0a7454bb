//===- embed/Callable.cpp - A def a host calls, compiled per argument types ===//
#include "embed/Callable.h"

#include <cstring>
#include <mutex>

namespace dlm::embed {

namespace {

/// Deeper argument trees are refused (a tuple whose elements point back at it would recurse
/// forever).
constexpr int kMaxDepth = 64;

/// The dlm dtype of a DLPack one (lanes 1), if dlm has it.
std::optional<DType> dtypeOf(DLDataType t) {
  if (t.lanes != 1)
    return std::nullopt;
  if (t.code == kDLFloat && t.bits == 32)
    return DType::F32;
  if (t.code == kDLFloat && t.bits == 64)
    return DType::F64;
  if (t.code == kDLInt && t.bits == 32)
    return DType::I32;
  if (t.code == kDLInt && t.bits == 64)
    return DType::I64;
  if (t.code == DLM_DLPACK_BOOL && t.bits == 8)
    return DType::Bool;
  return std::nullopt;
}

std::string dlpackTypeName(DLDataType t) {
  std::string code = t.code == kDLInt            ? "int"
                     : t.code == kDLUInt         ? "uint"
                     : t.code == kDLFloat        ? "float"
                     : t.code == kDLBfloat       ? "bfloat"
                     : t.code == kDLComplex      ? "complex"
                     : t.code == DLM_DLPACK_BOOL ? "bool"
                                                 : "code " + std::to_string(t.code);
  std::string name = code + std::to_string(t.bits);
  return t.lanes == 1 ? name : name + "x" + std::to_string(t.lanes);
}

const DLTensor *tensorOf(const dlm_arg &a) {
  return a.kind == DLM_KIND_MANAGED ? (a.value.managed ? &a.value.managed->dl_tensor : nullptr)
                                    : a.value.tensor;
}

/// "argument 2 ('x')", "element [1][0] of argument 1 ('params')".
struct ArgName {
  const DefInfo &def;
  size_t index;
  std::vector<int32_t> path;
  std::string str() const {
    std::string text;
    if (!path.empty()) {
      text = "element ";
      for (int32_t i : path)
        text += "[" + std::to_string(i) + "]";
      text += " of ";
    }
    text += "argument " + std::to_string(index + 1);
    if (index < def.params.size())
      text += " ('" + def.params[index].name + "')";
    return text;
  }
};

/// Checks what the API itself can take: known kinds, tensors on the CPU with dlm's dtypes.
std::string checkArg(const dlm_arg &a, ArgName &name, int depth) {
  if (depth > kMaxDepth)
    return name.str() + " is nested more than " + std::to_string(kMaxDepth) + " tuples deep";
  switch (a.kind) {
  case DLM_KIND_INT:
  case DLM_KIND_FLOAT:
  case DLM_KIND_BOOL:
    return "";
  case DLM_KIND_STR:
    if (depth > 0)
      return name.str() + " is a str inside a tuple: a str may only be an argument of its own";
    return a.value.str ? "" : name.str() + " is a null str";
  case DLM_KIND_TUPLE:
    if (a.count < 0 || (a.count > 0 && !a.value.elements))
      return name.str() + " is a tuple without elements (count " + std::to_string(a.count) + ")";
    for (int32_t i = 0; i < a.count; ++i) {
      name.path.push_back(i);
      std::string error = checkArg(a.value.elements[i], name, depth + 1);
      name.path.pop_back();
      if (!error.empty())
        return error;
    }
    return "";
  case DLM_KIND_TENSOR:
  case DLM_KIND_MANAGED: {
    const DLTensor *t = tensorOf(a);
    if (!t)
      return name.str() + " is a null tensor";
    if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost)
      return name.str() + " is not in host memory (DLPack device type " +
             std::to_string(t->device.device_type) + "): dlm takes CPU tensors";
    if (!dtypeOf(t->dtype))
      return name.str() + " has dtype " + dlpackTypeName(t->dtype) +
             ", which dlm does not have (f32, f64, i32, i64, bool)";
    if (t->ndim < 0 || (t->ndim > 0 && !t->shape))
      return name.str() + " has no shape (ndim " + std::to_string(t->ndim) + ")";
    int64_t numel = 1;
    for (int32_t d = 0; d < t->ndim; ++d) {
      if (t->shape[d] < 0)
        return name.str() + " has a negative dim " + std::to_string(t->shape[d]);
      numel *= t->shape[d];
    }
    if (numel > 0 && !t->data)
      return name.str() + " has no data";
    return "";
  }
  default:
    return name.str() + " has an unknown kind " + std::to_string(a.kind);
  }
}

/// The type of an argument as the host gives it: static shapes.
Type hostType(const dlm_arg &a) {
  switch (a.kind) {
  case DLM_KIND_INT:
    return Type::intTy();
  case DLM_KIND_FLOAT:
    return Type::floatTy();
  case DLM_KIND_BOOL:
    return Type::boolTy();
  case DLM_KIND_STR:
    return Type::strTy();
  case DLM_KIND_TUPLE: {
    std::vector<Type> elements;
    for (int32_t i = 0; i < a.count; ++i)
      elements.push_back(hostType(a.value.elements[i]));
    return Type::tuple(elements);
  }
  default: {
    const DLTensor *t = tensorOf(a);
    Shape shape;
    for (int32_t d = 0; d < t->ndim; ++d)
      shape.push_back(Dim::fixed(t->shape[d]));
    return Type::tensor(*dtypeOf(t->dtype), shape);
  }
  }
}

/// The sizes the symbolic dims of a call's parameter types stand for, and where each was first
/// seen (for the message when another place disagrees).
struct Bindings {
  struct Binding {
    const std::string *symbol;
    int64_t size;
    std::string where;
  };
  std::vector<Binding> bound;
  std::string conflict; ///< set when a dim disagrees, if `describe` was on
  bool describe = false;

  bool bind(const std::string &symbol, int64_t size, const ArgName &name, int32_t dim) {
    for (const Binding &b : bound) {
      if (*b.symbol != symbol)
        continue;
      if (b.size == size)
        return true;
      if (describe)
        conflict = "dim " + std::to_string(dim) + " of " + name.str() + " is " +
                   std::to_string(size) + ", but '" + symbol + "' is " + std::to_string(b.size) +
                   " (" + b.where + ")";
      return false;
    }
    bound.push_back(
        {&symbol, size,
         describe ? "dim " + std::to_string(dim) + " of " + name.str() : std::string()});
    return true;
  }
};

/// Whether `a` has parameter type `p`, binding its symbolic dims.
bool matches(const Type &p, const dlm_arg &a, Bindings &b, ArgName &name) {
  switch (a.kind) {
  case DLM_KIND_INT:
    return p.kind() == Type::Kind::Int;
  case DLM_KIND_FLOAT:
    return p.kind() == Type::Kind::Float;
  case DLM_KIND_BOOL:
    return p.kind() == Type::Kind::Bool;
  case DLM_KIND_STR:
    return p.kind() == Type::Kind::Str;
  case DLM_KIND_TUPLE:
    if (!p.isTuple() || p.elements().size() != size_t(a.count))
      return false;
    for (int32_t i = 0; i < a.count; ++i) {
      name.path.push_back(i);
      bool ok = matches(p.elements()[i], a.value.elements[i], b, name);
      name.path.pop_back();
      if (!ok)
        return false;
    }
    return true;
  default: {
    const DLTensor *t = tensorOf(a);
    if (!p.isTensor() || p.rank() != size_t(t->ndim) || p.dtype() != *dtypeOf(t->dtype))
      return false;
    for (int32_t d = 0; d < t->ndim; ++d) {
      const Dim &dim = p.shape()[d];
      if (dim.isStatic() ? dim.size() != t->shape[d] : !b.bind(dim.name(), t->shape[d], name, d))
        return false;
    }
    return true;
  }
  }
}

bool matchesAll(const std::vector<Type> &params, const std::vector<std::string> &strings,
                const dlm_arg *args, size_t n, const DefInfo &def, Bindings &b) {
  if (params.size() != n)
    return false;
  size_t nextString = 0;
  for (size_t i = 0; i < n; ++i) {
    ArgName name{def, i, {}};
    if (!matches(params[i], args[i], b, name))
      return false;
    if (args[i].kind == DLM_KIND_STR && strings[nextString++] != args[i].value.str)
      return false;
  }
  return true;
}

// --- Tensors in ------------------------------------------------------------------------------

/// Hands managed tensors over: whatever is not adopted by a tensor when the call ends is
/// released then (dlm.h: handed over whether the call succeeds or not).
struct ManagedTensors {
  std::vector<DLManagedTensor *> pending;
  ~ManagedTensors() {
    for (DLManagedTensor *m : pending)
      if (m && m->deleter)
        m->deleter(m);
  }
  void collect(const dlm_arg &a, int depth) {
    if (depth > kMaxDepth)
      return;
    if (a.kind == DLM_KIND_MANAGED)
      pending.push_back(a.value.managed);
    if (a.kind == DLM_KIND_TUPLE && a.value.elements)
      for (int32_t i = 0; i < a.count; ++i)
        collect(a.value.elements[i], depth + 1);
  }
  /// `m` is now owned by a tensor.
  void adopted(DLManagedTensor *m) {
    for (DLManagedTensor *&p : pending)
      if (p == m)
        p = nullptr;
  }
};

void releaseManaged(void *context) {
  auto *m = static_cast<DLManagedTensor *>(context);
  if (m->deleter)
    m->deleter(m);
}

/// A contiguous copy of `t` (negative strides or data not aligned to its element).
rt::Tensor copyOf(const DLTensor &t, DType dtype) {
  rt::Shape shape(t.shape, t.shape + t.ndim);
  rt::Tensor out = rt::Tensor::empty(dtype, shape);
  size_t size = dtypeSize(dtype);
  auto *dst = static_cast<char *>(out.rawData());
  const char *base = static_cast<const char *>(t.data) + t.byte_offset;
  int64_t numel = out.numel();
  std::vector<int64_t> index(t.ndim, 0);
  for (int64_t k = 0; k < numel; ++k) {
    int64_t offset = 0;
    for (int32_t d = 0; d < t.ndim; ++d)
      offset += index[d] * (t.strides ? t.strides[d] : out.strides()[d]);
    std::memcpy(dst + k * size, base + offset * int64_t(size), size);
    for (int32_t d = t.ndim - 1; d >= 0 && ++index[d] == t.shape[d]; --d)
      index[d] = 0;
  }
  return out;
}

/// `a` as a tensor: a view of its memory when the layout allows (lent for the call only, noted
/// in `lent`, unless handed over), else a copy.
rt::Tensor tensorFrom(const dlm_arg &a, std::vector<rt::Buffer *> &lent, ManagedTensors &managed) {
  const DLTensor &t = *tensorOf(a);
  DType dtype = *dtypeOf(t.dtype);
  size_t size = dtypeSize(dtype);
  rt::Shape shape(t.shape, t.shape + t.ndim), strides = rt::contiguousStrides(shape);
  bool viewable = true;
  int64_t numel = 1, extent = 1;
  for (int32_t d = 0; d < t.ndim; ++d) {
    numel *= shape[d];
    if (t.strides) {
      strides[d] = t.strides[d];
      viewable &= strides[d] >= 0;
    }
  }
  if (numel == 0)
    return rt::Tensor::empty(dtype, shape);
  for (int32_t d = 0; d < t.ndim; ++d)
    extent += (shape[d] - 1) * strides[d];
  char *data = static_cast<char *>(t.data) + t.byte_offset;
  viewable &= reinterpret_cast<uintptr_t>(data) % size == 0;
  if (!viewable)
    return copyOf(t, dtype);
  if (a.kind != DLM_KIND_MANAGED) {
    rt::Tensor view =
        rt::Tensor::external(dtype, shape, strides, data, size_t(extent) * size, nullptr, nullptr);
    lent.push_back(view.buffer());
    return view;
  }
  rt::Tensor view = rt::Tensor::external(dtype, shape, strides, data, size_t(extent) * size,
                                         releaseManaged, a.value.managed);
  managed.adopted(a.value.managed);
  return view;
}

/// The run-time arguments of a call, flattened: tensors (views of the host's memory) and scalars
/// as 0-d tensors; strs are compiled in.
void flatten(const dlm_arg &a, std::vector<rt::Tensor> &out, std::vector<rt::Buffer *> &lent,
             ManagedTensors &managed) {
  switch (a.kind) {
  case DLM_KIND_INT:
    out.push_back(rt::Tensor::scalarI64(a.value.i));
    return;
  case DLM_KIND_FLOAT:
    out.push_back(rt::Tensor::scalarF64(a.value.f));
    return;
  case DLM_KIND_BOOL:
    out.push_back(rt::Tensor::scalarBool(a.value.i != 0));
    return;
  case DLM_KIND_STR:
    return;
  case DLM_KIND_TUPLE:
    for (int32_t i = 0; i < a.count; ++i)
      flatten(a.value.elements[i], out, lent, managed);
    return;
  default:
    out.push_back(tensorFrom(a, lent, managed));
  }
}

// --- Results out -----------------------------------------------------------------------------

/// The result tree of type `t` from its flattened leaves (adopted). A tensor sharing memory a
/// host lent for the call only (`lent`) is copied: nothing returned points into it.
std::shared_ptr<Value> resultOf(const Type &t, dlm_tensor **&leaf,
                                const std::vector<rt::Buffer *> &lent) {
  auto v = std::make_shared<Value>();
  auto take = [&] { return rt::Tensor::adopt(reinterpret_cast<rt::TensorImpl *>(*leaf++)); };
  switch (t.kind()) {
  case Type::Kind::Tuple:
    v->kind = DLM_KIND_TUPLE;
    for (const Type &e : t.elements())
      v->elements.push_back(resultOf(e, leaf, lent));
    return v;
  case Type::Kind::Int:
    v->kind = DLM_KIND_INT;
    v->i = take().itemI64();
    return v;
  case Type::Kind::Float:
    v->kind = DLM_KIND_FLOAT;
    v->f = take().item();
    return v;
  case Type::Kind::Bool:
    v->kind = DLM_KIND_BOOL;
    v->i = take().itemBool();
    return v;
  case Type::Kind::Tensor: {
    v->kind = DLM_KIND_TENSOR;
    v->tensor = take();
    if (std::find(lent.begin(), lent.end(), v->tensor.buffer()) != lent.end())
      v->tensor = v->tensor.clone();
    return v;
  }
  default:
    return v; // none
  }
}

struct ManagedResult {
  DLManagedTensor managed;
  rt::Tensor tensor;
};

} // namespace

DLManagedTensor *toDLPack(const rt::Tensor &t) {
  auto *r = new ManagedResult{};
  r->tensor = t;
  DLTensor &dl = r->managed.dl_tensor;
  dl.data = t.buffer()->data();
  dl.byte_offset = uint64_t(t.offset()) * t.elementSize();
  dl.device = {kDLCPU, 0};
  dl.ndim = int32_t(t.rank());
  static const DLDataType kTypes[] = {{kDLFloat, 32, 1},
                                      {kDLFloat, 64, 1},
                                      {kDLInt, 32, 1},
                                      {kDLInt, 64, 1},
                                      {DLM_DLPACK_BOOL, 8, 1}};
  dl.dtype = kTypes[int(t.dtype())];
  dl.shape = const_cast<int64_t *>(t.shape().data());
  dl.strides = const_cast<int64_t *>(t.strides().data());
  r->managed.manager_ctx = r;
  r->managed.deleter = [](DLManagedTensor *self) {
    delete static_cast<ManagedResult *>(self->manager_ctx);
  };
  return &r->managed;
}

const std::string &Value::typeString() {
  std::call_once(typeOnce, [this] {
    switch (kind) {
    case DLM_KIND_TENSOR:
      type = tensor.typeString();
      break;
    case DLM_KIND_INT:
      type = "int";
      break;
    case DLM_KIND_FLOAT:
      type = "float";
      break;
    case DLM_KIND_BOOL:
      type = "bool";
      break;
    case DLM_KIND_TUPLE:
      type = "(";
      for (size_t i = 0; i < elements.size(); ++i)
        type += (i ? ", " : "") + elements[i]->typeString();
      type += elements.size() == 1 ? ",)" : ")";
      break;
    default:
      type = "none";
    }
  });
  return type;
}

const HostCallable::Compiled *HostCallable::find(const dlm_arg *args, int32_t numArgs,
                                                 Failure &failure) {
  size_t n = size_t(numArgs);
  auto lookup = [&]() -> const Compiled * {
    for (const auto &c : compiled) {
      Bindings b;
      if (matchesAll(c->params, c->strings, args, n, def, b))
        return c.get();
    }
    return nullptr;
  };
  {
    std::shared_lock<std::shared_mutex> guard(lock);
    if (const Compiled *c = lookup())
      return c;
  }
  // New argument types: their parameter types, whose symbols must agree.
  std::vector<Type> host;
  std::vector<std::string> strings;
  for (size_t i = 0; i < n; ++i) {
    host.push_back(hostType(args[i]));
    if (args[i].kind == DLM_KIND_STR)
      strings.push_back(args[i].value.str);
  }
  std::vector<Type> params = LoadedProgram::paramTypes(def, host);
  Bindings b;
  b.describe = true;
  if (!matchesAll(params, strings, args, n, def, b)) {
    failure = Failure::invalid(b.conflict + " in a call of '" + def.name + "'");
    return nullptr;
  }
  std::unique_lock<std::shared_mutex> guard(lock);
  if (const Compiled *c = lookup()) // another thread compiled it meanwhile
    return c;
  auto c = std::make_unique<Compiled>();
  c->params = std::move(params);
  c->strings = std::move(strings);
  std::string diagnostics;
  c->entry = module->program->compile(spec, c->params, c->strings, module->options, diagnostics);
  if (!c->entry)
    c->failure = {DLM_ERROR_COMPILE, diagnostics};
  compiled.push_back(std::move(c));
  return compiled.back().get();
}

Failure HostCallable::call(const dlm_arg *args, int32_t numArgs, std::shared_ptr<Value> &result) {
  ManagedTensors managed;
  if (numArgs > 0 && args)
    for (int32_t i = 0; i < numArgs; ++i)
      managed.collect(args[i], 0);
  if (numArgs < 0 || (numArgs > 0 && !args))
    return Failure::invalid("no arguments given (" + std::to_string(numArgs) + " at null)");
  size_t n = size_t(numArgs);
  if (n < def.numRequired() || n > def.params.size()) {
    std::string takes =
        def.numRequired() == def.params.size()
            ? std::to_string(def.params.size())
            : std::to_string(def.numRequired()) + " to " + std::to_string(def.params.size());
    return Failure::invalid("'" + def.name + "' takes " + takes + " argument" +
                            (def.params.size() == 1 ? "" : "s") + ", " + std::to_string(n) +
                            " given: " + def.signature);
  }
  for (size_t i = 0; i < n; ++i) {
    ArgName name{def, i, {}};
    if (std::string error = checkArg(args[i], name, 0); !error.empty())
      return Failure::invalid(error + " in a call of '" + def.name + "'");
  }
  Failure failure;
  const Compiled *c = find(args, numArgs, failure);
  if (!c)
    return failure;
  if (!c->entry)
    return c->failure;
  const EntryPoint &entry = *c->entry;
  std::vector<rt::Tensor> flat;
  flat.reserve(entry.numArgs);
  std::vector<rt::Buffer *> lent; // memory the host lent for this call only
  for (size_t i = 0; i < n; ++i)
    flatten(args[i], flat, lent, managed);
  std::vector<dlm_tensor *> ins(flat.size()), outs(entry.numResults, nullptr);
  for (size_t i = 0; i < flat.size(); ++i)
    ins[i] = reinterpret_cast<dlm_tensor *>(flat[i].get());
  std::string error;
  if (!entry.call(ins.data(), outs.data(), error))
    return {DLM_ERROR_RUNTIME, error};
  dlm_tensor **leaf = outs.data();
  result = resultOf(entry.result, leaf, lent);
  return {};
}

} // namespace dlm::embed
