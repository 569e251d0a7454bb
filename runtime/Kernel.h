//===- runtime/Kernel.h - The kernel interface and the kernel table -------===//
//
// A kernel implements one op of docs/ops.md on one device. Kernels are looked up by the op's
// exact name (the shared vocabulary with the compiler's op registry) and a device:
//
//   const KernelInfo *k = findKernel("add", Device::CPU);
//   std::vector<Value> outs;
//   Status s = callKernel(*k, {Value(a), Value(b)}, Attrs(), outs);
//   if (!s) report(location, s.message());
//
// A kernel receives its operands as `Value`s (a Tensor, or a string for print/save paths) and
// its attributes as an `Attrs` (named ints, floats, bools, int lists, strings, dtypes, tensors).
// It computes its output shapes from the run-time operand shapes, allocates the outputs and
// appends them to `outputs` (several for multi-result ops such as split). On a run-time error
// it throws rt::Error; callKernel turns that into a failed Status, so callers never see
// exceptions and the program is never aborted.
//
// Kernel ids (for the C ABI) are indices into the table of op names, stable within a process.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_KERNEL_H
#define DLM_RUNTIME_KERNEL_H

#include "ops/OpKind.h"
#include "runtime/Tensor.h"

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace dlm::rt {

/// An operand or result of a kernel: a tensor, or a string (print arguments, file paths).
class Value {
public:
  Value() = default;
  Value(Tensor t) : v(std::move(t)) {}
  Value(std::string s) : v(std::move(s)) {}
  Value(const char *s) : v(std::string(s)) {}
  bool isTensor() const { return std::holds_alternative<Tensor>(v); }
  bool isString() const { return std::holds_alternative<std::string>(v); }
  /// The tensor; throws rt::Error if this is a string.
  const Tensor &tensor() const;
  const std::string &str() const;
  /// The tensor held, or null for a string: lets the C ABI move a result out, or drop a
  /// borrowed operand without a reference count change (runtime/CApi.cpp dlm_kernel_run).
  Tensor *tensorIf() { return std::get_if<Tensor>(&v); }

private:
  std::variant<Tensor, std::string> v;
};

/// An entry of a shape attribute (or a slice bound) whose value is the op's next trailing
/// integer operand at run time: a symbolic dimension (zeros(B, 10)) or a dynamic slice bound.
/// Equal to the compiler's kDynamicIndex. In `reshape`, -1 is the dimension to infer.
inline constexpr int64_t kDynamicDim = INT64_MIN;
/// A slice bound meaning "to the end of the dimension" in the step's direction (as `end`), or
/// "from the start" in the step's direction (as `begin`). Equal to the compiler's kSliceToEnd.
inline constexpr int64_t kSliceToEnd = INT64_MAX;

/// One attribute value. Shapes are int lists (see kDynamicDim); `load` takes a list of dtypes
/// and a list of shapes; a tensor literal (`const`) is a Tensor or flat floats with `shape`.
using Attr =
    std::variant<int64_t, double, bool, std::vector<int64_t>, std::string, DType, Tensor,
                 std::vector<double>, std::vector<DType>, std::vector<std::vector<int64_t>>>;

/// Named attributes of one op instance. Getters throw rt::Error naming the attribute when it is
/// missing or has another kind; `getOr` returns a default when it is missing.
class Attrs {
public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<const std::string, Attr>> init) : map(init) {}
  Attrs &set(const std::string &name, Attr value) {
    map[name] = std::move(value);
    return *this;
  }
  bool has(const std::string &name) const { return map.count(name) != 0; }
  const Attr *find(const std::string &name) const;

  int64_t getInt(const std::string &name) const;
  double getFloat(const std::string &name) const; ///< Also accepts an int.
  bool getBool(const std::string &name) const;
  /// An int list; a single int is accepted as a list of one.
  std::vector<int64_t> getInts(const std::string &name) const;
  const std::string &getString(const std::string &name) const;
  DType getDType(const std::string &name) const;
  const Tensor &getTensor(const std::string &name) const;
  /// A float list; an int list is converted.
  std::vector<double> getFloats(const std::string &name) const;
  std::vector<DType> getDTypes(const std::string &name) const;
  std::vector<std::vector<int64_t>> getShapes(const std::string &name) const;

  int64_t getInt(const std::string &name, int64_t dflt) const {
    return has(name) ? getInt(name) : dflt;
  }
  double getFloat(const std::string &name, double dflt) const {
    return has(name) ? getFloat(name) : dflt;
  }
  bool getBool(const std::string &name, bool dflt) const {
    return has(name) ? getBool(name) : dflt;
  }
  std::vector<int64_t> getInts(const std::string &name, std::vector<int64_t> dflt) const {
    return has(name) ? getInts(name) : dflt;
  }
  DType getDType(const std::string &name, DType dflt) const {
    return has(name) ? getDType(name) : dflt;
  }

  const std::map<std::string, Attr> &entries() const { return map; }

private:
  std::map<std::string, Attr> map;
};

/// A kernel: reads `inputs` and `attrs`, appends its results to `outputs`, throws rt::Error on
/// a run-time error.
using KernelFn = void (*)(std::span<const Value> inputs, const Attrs &attrs,
                          std::vector<Value> &outputs);

struct KernelInfo {
  std::string name;
  Device device;
  KernelFn fn;
  int32_t id; ///< Index of `name` in the op-name table (see kernelId).
};

/// Registers (or replaces) the kernel of `name` on `device`. Thread-safe; normally called at
/// start-up by a backend (the CPU kernels register themselves on first lookup).
void registerKernel(std::string_view name, Device device, KernelFn fn);

/// Registers the kernel of op `kind` (named after it) on `device`.
inline void registerKernel(OpKind kind, Device device, KernelFn fn) {
  registerKernel(opName(kind), device, fn);
}

/// The kernel of op `name` on `device`, or nullptr.
const KernelInfo *findKernel(std::string_view name, Device device = Device::CPU);
/// The kernel of op `kind` on `device`, or nullptr.
inline const KernelInfo *findKernel(OpKind kind, Device device = Device::CPU) {
  return findKernel(opName(kind), device);
}
/// The stable id of op name `name` (registering the name if new), for the C ABI.
int32_t kernelId(std::string_view name);
/// The kernel with id `id` on `device`, or nullptr.
const KernelInfo *kernelById(int32_t id, Device device = Device::CPU);
/// Names of every op with a kernel on `device`, sorted.
std::vector<std::string> kernelNames(Device device = Device::CPU);

/// Runs a kernel, catching rt::Error (and allocation failures) into the returned Status.
Status callKernel(const KernelInfo &kernel, std::span<const Value> inputs, const Attrs &attrs,
                  std::vector<Value> &outputs);
/// Looks up `name` on the device of the first tensor operand not on the CPU (the CPU if none:
/// host scalars may feed a GPU kernel) and runs it.
Status callKernel(std::string_view name, std::span<const Value> inputs, const Attrs &attrs,
                  std::vector<Value> &outputs);

/// Same, for a braced list of operands.
inline Status callKernel(std::string_view name, std::initializer_list<Value> inputs,
                         const Attrs &attrs, std::vector<Value> &outputs) {
  return callKernel(name, std::span<const Value>(inputs.begin(), inputs.size()), attrs, outputs);
}

/// Convenience for C++ callers and tests: runs `name` and returns its first output tensor,
/// throwing rt::Error on failure.
Tensor run(std::string_view name, std::vector<Value> inputs, const Attrs &attrs = {});
/// Like `run` but returns every output.
std::vector<Value> runAll(std::string_view name, std::vector<Value> inputs,
                          const Attrs &attrs = {});

} // namespace dlm::rt

#endif // DLM_RUNTIME_KERNEL_H
