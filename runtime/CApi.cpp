//===- runtime/CApi.cpp - The C ABI over tensors and kernels -------------===//
#include "runtime/CApi.h"
#include "kernels/cpu/CpuKernels.h"
#include "kernels/cpu/StackOps.h"
#include "runtime/CpuDispatch.h"
#include "runtime/Kernel.h"
#include "runtime/Random.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

using namespace dlm;
using namespace dlm::rt;

struct dlm_attrs {
  Attrs attrs;
};

namespace {

thread_local std::string lastError;

/// A position of the .dlm program as generated code reported it (dlm_set_error_site).
struct ErrorPosition {
  std::string file, sourceLine;
  int32_t line = 0, col = 0;
  bool known = false;
};
/// Where generated code last reported an error, and the notes after it.
struct ErrorLocation : ErrorPosition {
  std::vector<std::pair<ErrorPosition, std::string>> notes;
  std::vector<dlm_error_note> noteViews; ///< what dlm_error_notes hands out
};
thread_local ErrorLocation lastErrorLocation;

TensorImpl *impl(const dlm_tensor *t) {
  return reinterpret_cast<TensorImpl *>(const_cast<dlm_tensor *>(t));
}
dlm_tensor *handle(Tensor t) { return reinterpret_cast<dlm_tensor *>(t.release()); }
Tensor borrow(const dlm_tensor *t) { return Tensor::share(impl(t)); }

/// A Tensor over a handle without taking a reference (none is dropped at its end either): for
/// reading a tensor's properties through Tensor's methods without touching the count.
class Unowned {
public:
  explicit Unowned(const dlm_tensor *t) : t(Tensor::adopt(impl(t))) {}
  ~Unowned() { (void)t.release(); }
  Unowned(const Unowned &) = delete;
  Unowned &operator=(const Unowned &) = delete;
  const Tensor *operator->() const { return &t; }
  const Tensor &operator*() const { return t; }

private:
  Tensor t;
};

/// Runs fn, storing any error for dlm_last_error; returns 0 on success and 1 on error.
template <typename Fn> int capture(Fn &&fn) {
  Status s = guard(fn);
  if (s)
    return 0;
  lastError = s.message();
  return 1;
}

std::optional<DType> toDType(int32_t d) {
  if (d < 0 || d > (int32_t)DType::Bool)
    return std::nullopt;
  return (DType)d;
}

DType needDType(int32_t d) {
  auto dt = toDType(d);
  if (!dt)
    throw Error("invalid dtype code " + std::to_string(d));
  return *dt;
}

Shape toShape(int32_t rank, const int64_t *shape) {
  check(rank >= 0, "negative rank");
  return Shape(shape, shape + rank);
}

template <typename Make> dlm_tensor *makeTensor(Make &&make) {
  dlm_tensor *out = nullptr;
  capture([&] { out = handle(make()); });
  return out;
}

/// The operand and result lists of one thread's kernel calls, reused from call to call so that
/// a call allocates no vector (a dispatch-bound loop makes millions). A kernel that calls the
/// C ABI again, or a call during the thread's exit, gets lists of its own.
struct CallLists {
  std::vector<Value> ins, outs;
  bool busy = false;
};
thread_local bool callListsGone = false;
struct ThreadCallLists : CallLists {
  ~ThreadCallLists() { callListsGone = true; }
};
thread_local ThreadCallLists callLists;

/// Runs kernel `id` on operands that `fill(ins)` appends.
template <typename Fill>
int callWith(int32_t id, Fill &&fill, const dlm_attrs *attrs, dlm_tensor **outputs,
             int32_t maxOutputs, int32_t *nOutputs) {
  if (nOutputs)
    *nOutputs = 0;
  CallLists own;
  CallLists &lists = callListsGone || callLists.busy ? own : callLists;
  lists.busy = true;
  int status = capture([&] {
    std::vector<Value> &ins = lists.ins, &outs = lists.outs;
    fill(ins);
    // A node placed on a GPU may also read host scalars: any operand off the CPU picks the device.
    Device device = Device::CPU;
    for (const Value &v : ins)
      if (v.isTensor() && v.tensor().device() != Device::CPU) {
        device = v.tensor().device();
        break;
      }
    const KernelInfo *k = kernelById(id, device);
    if (!k)
      throw Error("no kernel with id " + std::to_string(id) + " on " + deviceName(device));
    static const Attrs noAttrs;
    Status s = callKernel(*k, ins, attrs ? attrs->attrs : noAttrs, outs);
    if (!s)
      throw Error(s.message());
    if ((int32_t)outs.size() > maxOutputs)
      throw Error("'" + k->name + "' produced " + std::to_string(outs.size()) +
                  " outputs, room for " + std::to_string(maxOutputs));
    for (size_t i = 0; i < outs.size(); ++i)
      outputs[i] = handle(outs[i].tensor());
    if (nOutputs)
      *nOutputs = (int32_t)outs.size();
  });
  lists.ins.clear();
  lists.outs.clear();
  lists.busy = false;
  return status;
}

/// The first output of op `name` run through the kernel table on operands not all on the
/// CPU (a direct entry's fallback: the device's kernel).
Tensor onDevice(const char *op, std::initializer_list<Value> ins,
                const dlm_attrs *attrs = nullptr) {
  std::vector<Value> outs;
  Status status = callKernel(op, ins, attrs ? attrs->attrs : Attrs(), outs);
  if (!status)
    throw Error(status.message());
  return outs.at(0).tensor();
}

/// A stack read (dlm_stack_top, dlm_stack_pop): the CPU function directly, the device's kernel
/// for a stack elsewhere.
dlm_tensor *stackRead(const dlm_tensor *s, const char *op, Tensor (*onCpu)(const Tensor &)) {
  return makeTensor([&] {
    Unowned stack(s);
    return stack->device() == Device::CPU ? onCpu(*stack) : onDevice(op, {Value(borrow(s))});
  });
}

/// Per-thread scratch for the dims and strides of the direct entries' views (no vector
/// allocated per view).
thread_local Shape viewShape, viewStrides;

} // namespace

extern "C" {

const char *dlm_last_error(void) { return lastError.c_str(); }
void dlm_clear_error(void) { lastError.clear(); }

dlm_tensor *dlm_tensor_empty(int32_t dtype, int32_t rank, const int64_t *shape) {
  return makeTensor([&] { return Tensor::empty(needDType(dtype), toShape(rank, shape)); });
}
dlm_tensor *dlm_tensor_zeros(int32_t dtype, int32_t rank, const int64_t *shape) {
  return makeTensor([&] { return Tensor::zeros(needDType(dtype), toShape(rank, shape)); });
}
dlm_tensor *dlm_tensor_from_data(int32_t dtype, int32_t rank, const int64_t *shape,
                                 const void *data) {
  return makeTensor([&] { return Tensor::fromData(needDType(dtype), toShape(rank, shape), data); });
}
dlm_tensor *dlm_tensor_scalar_f64(double v) {
  return makeTensor([&] { return Tensor::scalarF64(v); });
}
dlm_tensor *dlm_tensor_scalar_i64(int64_t v) {
  return makeTensor([&] { return Tensor::scalarI64(v); });
}
dlm_tensor *dlm_tensor_scalar_bool(int32_t v) {
  return makeTensor([&] { return Tensor::scalarBool(v != 0); });
}

void dlm_tensor_retain(dlm_tensor *t) {
  if (t)
    impl(t)->refs.fetch_add(1, std::memory_order_relaxed);
}
void dlm_tensor_release(dlm_tensor *t) {
  if (t)
    (void)Tensor::adopt(impl(t)); // the temporary drops the reference
}

int32_t dlm_tensor_dtype(const dlm_tensor *t) { return (int32_t)impl(t)->dtype; }
int32_t dlm_tensor_rank(const dlm_tensor *t) { return (int32_t)impl(t)->shape.size(); }
const int64_t *dlm_tensor_shape(const dlm_tensor *t) { return impl(t)->shape.data(); }
const int64_t *dlm_tensor_strides(const dlm_tensor *t) { return impl(t)->strides.data(); }
int64_t dlm_tensor_numel(const dlm_tensor *t) { return numelOf(impl(t)->shape); }
// (No reference taken: generated code calls these for every elementwise op.)
void *dlm_tensor_data(const dlm_tensor *t) { return Unowned(t)->rawData(); }
int32_t dlm_tensor_is_contiguous(const dlm_tensor *t) { return Unowned(t)->isContiguous(); }
dlm_tensor *dlm_tensor_contiguous(dlm_tensor *t) {
  return makeTensor([&] { return Unowned(t)->contiguous(); });
}
int dlm_tensor_item_f64(const dlm_tensor *t, double *out) {
  return capture([&] { *out = Unowned(t)->item(); });
}
int dlm_tensor_item_i64(const dlm_tensor *t, int64_t *out) {
  return capture([&] { *out = Unowned(t)->itemI64(); });
}

dlm_attrs *dlm_attrs_new(void) { return new dlm_attrs(); }
void dlm_attrs_free(dlm_attrs *a) { delete a; }
void dlm_attrs_set_int(dlm_attrs *a, const char *name, int64_t v) { a->attrs.set(name, v); }
void dlm_attrs_set_float(dlm_attrs *a, const char *name, double v) { a->attrs.set(name, v); }
void dlm_attrs_set_bool(dlm_attrs *a, const char *name, int32_t v) { a->attrs.set(name, v != 0); }
void dlm_attrs_set_ints(dlm_attrs *a, const char *name, const int64_t *v, int64_t n) {
  a->attrs.set(name, std::vector<int64_t>(v, v + n));
}
void dlm_attrs_set_string(dlm_attrs *a, const char *name, const char *v) {
  a->attrs.set(name, std::string(v));
}
void dlm_attrs_set_dtype(dlm_attrs *a, const char *name, int32_t dtype) {
  if (auto d = toDType(dtype))
    a->attrs.set(name, *d);
}
void dlm_attrs_set_tensor(dlm_attrs *a, const char *name, dlm_tensor *t) {
  a->attrs.set(name, borrow(t));
}

int32_t dlm_kernel_id(const char *name) {
  if (!findKernel(name, Device::CPU) && !findKernel(name, Device::CUDA)) {
    lastError = std::string("no kernel for op '") + name + "'";
    return -1;
  }
  return kernelId(name);
}

int dlm_kernel_call(int32_t id, dlm_tensor *const *inputs, int32_t nInputs, const dlm_attrs *attrs,
                    dlm_tensor **outputs, int32_t maxOutputs, int32_t *nOutputs) {
  auto fill = [&](std::vector<Value> &ins) {
    for (int32_t i = 0; i < nInputs; ++i)
      ins.emplace_back(borrow(inputs[i]));
  };
  return callWith(id, fill, attrs, outputs, maxOutputs, nOutputs);
}

int dlm_kernel_call_values(int32_t id, const dlm_value *inputs, int32_t nInputs,
                           const dlm_attrs *attrs, dlm_tensor **outputs, int32_t maxOutputs,
                           int32_t *nOutputs) {
  auto fill = [&](std::vector<Value> &ins) {
    for (int32_t i = 0; i < nInputs; ++i) {
      if (inputs[i].tensor)
        ins.emplace_back(borrow(inputs[i].tensor));
      else
        ins.emplace_back(std::string(inputs[i].str ? inputs[i].str : ""));
    }
  };
  return callWith(id, fill, attrs, outputs, maxOutputs, nOutputs);
}

dlm_tensor *dlm_tensor_scalar_f32(float v) {
  return makeTensor([&] { return Tensor::fromData(DType::F32, {}, &v); });
}
dlm_tensor *dlm_tensor_scalar_i32(int32_t v) {
  return makeTensor([&] { return Tensor::fromData(DType::I32, {}, &v); });
}

int dlm_tensor_read_scalar(const dlm_tensor *t, int32_t dtype, void *out) {
  return capture([&] {
    Unowned handle(t);
    const Tensor &x = *handle;
    if (x.numel() != 1)
      throw Error("expected a single value, got " + x.typeString());
    DType to = needDType(dtype);
    dispatchDType(x.dtype(), [&]<typename From>() {
      From v = *x.data<From>();
      dispatchDType(to, [&]<typename To>() { *static_cast<To *>(out) = static_cast<To>(v); });
    });
  });
}

void dlm_attrs_set_floats(dlm_attrs *a, const char *name, const double *v, int64_t n) {
  a->attrs.set(name, std::vector<double>(v, v + n));
}
void dlm_attrs_set_dtypes(dlm_attrs *a, const char *name, const int32_t *v, int64_t n) {
  std::vector<DType> dtypes;
  for (int64_t i = 0; i < n; ++i)
    if (auto d = toDType(v[i]))
      dtypes.push_back(*d);
  a->attrs.set(name, dtypes);
}
void dlm_attrs_set_shapes(dlm_attrs *a, const char *name, const int64_t *dims, const int64_t *ranks,
                          int64_t n) {
  std::vector<std::vector<int64_t>> shapes;
  for (int64_t i = 0; i < n; ++i) {
    shapes.emplace_back(dims, dims + ranks[i]);
    dims += ranks[i];
  }
  a->attrs.set(name, shapes);
}

void *dlm_tensor_dense_data(const dlm_tensor *t) {
  Unowned view(t);
  // Generated loops read host memory only; a GPU tensor takes the kernel path.
  return view->isContiguous() && view->device() == Device::CPU ? view->rawData() : nullptr;
}

dlm_tensor *dlm_tensor_output_like(dlm_tensor *donor, int32_t dtype, const dlm_tensor *like) {
  const TensorImpl *l = impl(like);
  if (donor) {
    TensorImpl *d = impl(donor);
    if (d->refs.load(std::memory_order_acquire) == 1 && d->buffer->useCount() == 1 &&
        (int32_t)d->dtype == dtype && (d == l || d->shape == l->shape) &&
        dlm_tensor_dense_data(donor))
      return donor;
  }
  return makeTensor([&] { return Tensor::empty(needDType(dtype), l->shape); });
}

dlm_tensor *dlm_tensor_slice(const dlm_tensor *t, int32_t rank, const int64_t *start,
                             const int64_t *shape) {
  return makeTensor([&] {
    const TensorImpl *x = impl(t);
    check(rank == (int32_t)x->shape.size(), "dlm_tensor_slice: rank mismatch");
    int64_t offset = x->offset;
    for (int32_t d = 0; d < rank; ++d) {
      check(start[d] >= 0 && shape[d] >= 0 && start[d] + shape[d] <= x->shape[d],
            "dlm_tensor_slice: out of bounds");
      offset += start[d] * x->strides[d];
    }
    viewShape.assign(shape, shape + rank);
    return Unowned(t)->view(viewShape, x->strides, offset);
  });
}

dlm_tensor *dlm_tensor_slice_grad(const dlm_tensor *g, const dlm_attrs *attrs, int32_t rank,
                                  const int64_t *shape, const int64_t *start) {
  return makeTensor([&] {
    Tensor grad = borrow(g);
    if (grad.device() != Device::CPU) {
      std::vector<Value> outs;
      Status status = callKernel("slice_grad", {Value(grad)}, attrs ? attrs->attrs : Attrs(), outs);
      if (!status)
        throw Error(status.message());
      return outs.at(0).tensor();
    }
    check(rank == (int32_t)grad.rank(), "dlm_tensor_slice_grad: rank mismatch");
    thread_local Shape outShape;
    outShape.assign(shape, shape + rank);
    Tensor out = Tensor::zeros(grad.dtype(), outShape);
    int64_t offset = 0;
    for (int32_t d = 0; d < rank; ++d) {
      check(start[d] >= 0 && start[d] + grad.dim(d) <= shape[d],
            "dlm_tensor_slice_grad: out of bounds");
      offset += start[d] * out.strides()[d];
    }
    copyInto(out.view(grad.shape(), out.strides(), offset), grad);
    return out;
  });
}

dlm_tensor *dlm_stack_top(const dlm_tensor *s) { return stackRead(s, "stack_top", cpu::stackTop); }
dlm_tensor *dlm_stack_pop(const dlm_tensor *s) { return stackRead(s, "stack_pop", cpu::stackPop); }

dlm_tensor *dlm_stack_push(const dlm_tensor *s, const dlm_tensor *x) {
  return makeTensor([&] {
    Unowned stack(s), value(x);
    if (stack->device() == Device::CPU && value->device() == Device::CPU)
      return cpu::stackPush(*stack, *value);
    return onDevice("stack_push", {Value(borrow(s)), Value(borrow(x))});
  });
}

dlm_tensor *dlm_tensor_transpose(const dlm_tensor *t, int32_t rank, const int64_t *perm) {
  return makeTensor([&] {
    const TensorImpl *x = impl(t);
    if (rank != (int32_t)x->shape.size())
      throw Error("transpose: permutation of " + std::to_string(rank) +
                  " axes does not match rank " + std::to_string(x->shape.size()));
    viewShape.resize(rank);
    viewStrides.resize(rank);
    for (int32_t d = 0; d < rank; ++d) {
      viewShape[d] = x->shape[perm[d]];
      viewStrides[d] = x->strides[perm[d]];
    }
    return Unowned(t)->view(viewShape, viewStrides, x->offset);
  });
}

dlm_tensor *dlm_tensor_select(const dlm_tensor *t, int32_t axis, int64_t i) {
  return makeTensor([&] {
    const TensorImpl *x = impl(t);
    int32_t rank = (int32_t)x->shape.size();
    if (axis < 0 || axis >= rank)
      throw Error("index: axis " + std::to_string(axis) + " of a rank " + std::to_string(rank) +
                  " tensor");
    int64_t size = x->shape[axis];
    if (i < -size || i >= size) // (the index kernel's message: kernels/cpu/Shape.cpp)
      throw Error("index " + std::to_string(i) + " is out of range for axis " +
                  std::to_string(axis) + " with size " + std::to_string(size));
    if (i < 0)
      i += size;
    viewShape.assign(x->shape.begin(), x->shape.end());
    viewStrides.assign(x->strides.begin(), x->strides.end());
    viewShape.erase(viewShape.begin() + axis);
    viewStrides.erase(viewStrides.begin() + axis);
    return Unowned(t)->view(viewShape, viewStrides, x->offset + i * x->strides[axis]);
  });
}

dlm_tensor *dlm_tensor_reshape(const dlm_tensor *t, int32_t rank, const int64_t *shape) {
  return makeTensor([&] {
    Unowned x(t);
    if (x->device() == Device::CPU || x->isContiguous())
      return x->reshape(Shape(shape, shape + rank));
    dlm_attrs attrs; // (a copy on another device is its kernel's)
    attrs.attrs.set("shape", std::vector<int64_t>(shape, shape + rank));
    return onDevice("reshape", {Value(borrow(t))}, &attrs);
  });
}

dlm_tensor *dlm_tensor_sum_to(const dlm_tensor *x, int32_t rank, const int64_t *shape,
                              const dlm_attrs *attrs) {
  return makeTensor([&] {
    Unowned t(x);
    if (t->device() != Device::CPU)
      return onDevice("sum_to", {Value(borrow(x))}, attrs);
    viewShape.assign(shape, shape + rank);
    if (!isFloat(t->dtype()) || t->numel() != numelOf(viewShape))
      throw Error("dlm_tensor_sum_to: cannot sum " + t->typeString() + " down to shape " +
                  shapeString(viewShape));
    Tensor dense = t->contiguous(), out = Tensor::empty(t->dtype(), viewShape);
    dispatchDType(t->dtype(), [&]<typename T>() {
      if constexpr (std::is_floating_point_v<T>) {
        const T *in = dense.data<T>();
        T *o = out.data<T>();
        for (int64_t i = 0, n = out.numel(); i < n; ++i)
          o[i] = in[i] + T(0);
      }
    });
    return out;
  });
}

dlm_tensor *dlm_kernel_run(int32_t id, dlm_tensor *const *inputs, int32_t nInputs,
                           const dlm_attrs *attrs) {
  CallLists own;
  CallLists &lists = callListsGone || callLists.busy ? own : callLists;
  lists.busy = true;
  dlm_tensor *out = nullptr;
  int status = capture([&] {
    Device device = Device::CPU;
    for (int32_t i = 0; i < nInputs; ++i) {
      // The operands are borrowed: adopted without a reference, given up unreleased below.
      lists.ins.emplace_back(Tensor::adopt(impl(inputs[i])));
      if (inputs[i] && device == Device::CPU)
        device = impl(inputs[i])->buffer->device();
    }
    const KernelInfo *k = kernelById(id, device);
    if (!k)
      throw Error("no kernel with id " + std::to_string(id) + " on " + deviceName(device));
    for (int32_t i = 0; i < nInputs; ++i)
      if (!inputs[i])
        throw Error("'" + k->name + "': null tensor operand");
    static const Attrs noAttrs;
    k->fn(lists.ins, attrs ? attrs->attrs : noAttrs, lists.outs);
    Tensor *result = lists.outs.size() == 1 ? lists.outs[0].tensorIf() : nullptr;
    if (!result)
      throw Error("'" + k->name + "' did not produce one tensor");
    out = handle(std::move(*result));
  });
  for (Value &v : lists.ins)
    (void)v.tensorIf()->release();
  lists.ins.clear();
  lists.outs.clear();
  lists.busy = false;
  return status ? nullptr : out;
}

dlm_tensor *dlm_matmul_bias_accumulate(int32_t id, dlm_tensor *const *inputs,
                                       const dlm_attrs *attrs) {
  if (inputs[0] && inputs[1] && inputs[2]) {
    Unowned a(inputs[0]), b(inputs[1]), acc(inputs[2]);
    bool relu = false;
    bool done = capture([&] { relu = attrs && attrs->attrs.getBool("relu", false); }) == 0 &&
                cpu::isSoleOwner(*acc) && cpu::matmulBiasAccumulate(*a, *b, *acc, relu);
    if (done)
      return inputs[2];
  }
  return dlm_kernel_run(id, inputs, 3, attrs);
}

void dlm_set_error(const char *message) { lastError = message ? message : ""; }

void dlm_set_error_site(const dlm_error_site *site) {
  auto position = [](const char *file, int32_t line, int32_t col, const char *sourceLine) {
    return ErrorPosition{file ? file : "", sourceLine ? sourceLine : "", line, col,
                         file != nullptr};
  };
  ErrorLocation &loc = lastErrorLocation;
  static_cast<ErrorPosition &>(loc) =
      position(site->file, site->line, site->col, site->source_line);
  loc.notes.clear();
  loc.noteViews.clear();
  for (int32_t i = 0; i < site->n_notes; ++i) {
    const dlm_error_note &n = site->notes[i];
    loc.notes.emplace_back(position(n.file, n.line, n.col, n.source_line),
                           n.message ? n.message : "");
  }
  for (const auto &[at, message] : loc.notes)
    loc.noteViews.push_back(
        {at.file.c_str(), at.line, at.col, at.sourceLine.c_str(), message.c_str()});
  if (site->prefix && *site->prefix)
    lastError = site->prefix + lastError;
}

void dlm_error_location(const char **file, int32_t *line, int32_t *col) {
  const ErrorLocation &loc = lastErrorLocation;
  *file = loc.known ? loc.file.c_str() : nullptr;
  *line = loc.known ? loc.line : 0;
  *col = loc.known ? loc.col : 0;
}

int32_t dlm_error_notes(const dlm_error_note **notes) {
  *notes = lastErrorLocation.noteViews.data();
  return (int32_t)lastErrorLocation.noteViews.size();
}

const char *dlm_last_error_report(void) {
  const ErrorLocation &loc = lastErrorLocation;
  thread_local std::string report;
  report.clear();
  // "file:line:col: KIND: message", the source line and a caret under the column.
  auto add = [](const ErrorPosition &at, const char *kind, const std::string &message) {
    if (!at.known || at.line == 0) {
      report += std::string(kind) + ": " + message + "\n";
      return;
    }
    report += at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + kind +
              ": " + message + "\n";
    if (at.sourceLine.empty())
      return;
    report += at.sourceLine + "\n" + std::string(at.col > 0 ? at.col - 1 : 0, ' ') + "^\n";
  };
  add(loc, "error", lastError);
  for (const auto &[at, message] : loc.notes)
    add(at, "note", message);
  return report.c_str();
}

void dlm_print_last_error(void) {
  std::fflush(stdout);
  std::fputs(dlm_last_error_report(), stderr);
}

void dlm_seed(uint64_t s) { seed(s); }

int32_t dlm_use_fma(void) { return useFmaCodePaths() ? 1 : 0; }

} // extern "C"
