//===- runtime/Kernel.cpp - Attrs, Values and the kernel table -----------===//
#include "runtime/Kernel.h"
#include "kernels/cpu/CpuKernels.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace dlm::rt {

const Tensor &Value::tensor() const {
  if (auto *t = std::get_if<Tensor>(&v))
    return *t;
  throw Error("expected a tensor operand, got a string");
}

const std::string &Value::str() const {
  if (auto *s = std::get_if<std::string>(&v))
    return *s;
  throw Error("expected a string operand, got a tensor");
}

const Attr *Attrs::find(const std::string &name) const {
  auto it = map.find(name);
  return it == map.end() ? nullptr : &it->second;
}

namespace {
const Attr &need(const Attrs &a, const std::string &name) {
  const Attr *v = a.find(name);
  if (!v)
    throw Error("missing attribute '" + name + "'");
  return *v;
}
[[noreturn]] void wrongKind(const std::string &name, const char *kind) {
  throw Error("attribute '" + name + "' is not " + kind);
}
} // namespace

int64_t Attrs::getInt(const std::string &name) const {
  const Attr &v = need(*this, name);
  if (auto *i = std::get_if<int64_t>(&v))
    return *i;
  if (auto *b = std::get_if<bool>(&v))
    return *b;
  wrongKind(name, "an int");
}

double Attrs::getFloat(const std::string &name) const {
  const Attr &v = need(*this, name);
  if (auto *d = std::get_if<double>(&v))
    return *d;
  if (auto *i = std::get_if<int64_t>(&v))
    return (double)*i;
  wrongKind(name, "a float");
}

bool Attrs::getBool(const std::string &name) const {
  const Attr &v = need(*this, name);
  if (auto *b = std::get_if<bool>(&v))
    return *b;
  if (auto *i = std::get_if<int64_t>(&v))
    return *i != 0;
  wrongKind(name, "a bool");
}

std::vector<int64_t> Attrs::getInts(const std::string &name) const {
  const Attr &v = need(*this, name);
  if (auto *l = std::get_if<std::vector<int64_t>>(&v))
    return *l;
  if (auto *i = std::get_if<int64_t>(&v))
    return {*i};
  wrongKind(name, "an int list");
}

const std::string &Attrs::getString(const std::string &name) const {
  const Attr &v = need(*this, name);
  if (auto *s = std::get_if<std::string>(&v))
    return *s;
  wrongKind(name, "a string");
}

DType Attrs::getDType(const std::string &name) const {
  const Attr &v = need(*this, name);
  if (auto *d = std::get_if<DType>(&v))
    return *d;
  if (auto *s = std::get_if<std::string>(&v))
    if (auto d = parseDType(*s))
      return *d;
  wrongKind(name, "a dtype");
}

const Tensor &Attrs::getTensor(const std::string &name) const {
  const Attr &v = need(*this, name);
  if (auto *t = std::get_if<Tensor>(&v))
    return *t;
  wrongKind(name, "a tensor");
}

std::vector<double> Attrs::getFloats(const std::string &name) const {
  const Attr &v = need(*this, name);
  if (auto *l = std::get_if<std::vector<double>>(&v))
    return *l;
  if (auto *l = std::get_if<std::vector<int64_t>>(&v))
    return std::vector<double>(l->begin(), l->end());
  if (auto *d = std::get_if<double>(&v))
    return {*d};
  wrongKind(name, "a float list");
}

std::vector<DType> Attrs::getDTypes(const std::string &name) const {
  const Attr &v = need(*this, name);
  if (auto *l = std::get_if<std::vector<DType>>(&v))
    return *l;
  if (auto *d = std::get_if<DType>(&v))
    return {*d};
  wrongKind(name, "a dtype list");
}

std::vector<std::vector<int64_t>> Attrs::getShapes(const std::string &name) const {
  const Attr &v = need(*this, name);
  if (auto *l = std::get_if<std::vector<std::vector<int64_t>>>(&v))
    return *l;
  wrongKind(name, "a list of shapes");
}

namespace {

struct Table {
  std::mutex mu;
  std::vector<std::string> names;
  std::unordered_map<std::string, int32_t> ids;
  // kernels[device][id]; unique_ptr keeps KernelInfo addresses stable.
  std::vector<std::unique_ptr<KernelInfo>> kernels[kNumDevices];

  /// Bumped (under `mu`) by every change to `kernels`, so threads can keep a copy (byIdCache).
  std::atomic<uint64_t> generation{1};

  int32_t idLocked(std::string_view name) {
    auto it = ids.find(std::string(name));
    if (it != ids.end())
      return it->second;
    int32_t id = (int32_t)names.size();
    names.emplace_back(name);
    ids.emplace(std::string(name), id);
    for (auto &k : kernels)
      k.resize(names.size());
    generation.fetch_add(1, std::memory_order_release);
    return id;
  }
};

/// A thread's copy of the kernel table's pointers for kernelById: generated code calls a kernel
/// by id for every op it runs, and the table's mutex would be taken each time. Valid while the
/// table's generation is unchanged.
struct ByIdCache {
  uint64_t generation = 0;
  std::vector<const KernelInfo *> kernels[kNumDevices];
  ~ByIdCache() { byIdCacheGone = true; }
  static thread_local bool byIdCacheGone;
};
thread_local bool ByIdCache::byIdCacheGone = false;
thread_local ByIdCache byIdCache;

Table &table() {
  static Table t;
  return t;
}

void ensureBuiltins() {
  static std::once_flag once;
  std::call_once(once, [] { cpu::registerCpuKernels(); });
}

} // namespace

void registerKernel(std::string_view name, Device device, KernelFn fn) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  int32_t id = t.idLocked(name);
  t.kernels[(int)device][id] =
      std::make_unique<KernelInfo>(KernelInfo{std::string(name), device, fn, id});
  t.generation.fetch_add(1, std::memory_order_release);
}

const KernelInfo *findKernel(std::string_view name, Device device) {
  ensureBuiltins();
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.ids.find(std::string(name));
  if (it == t.ids.end())
    return nullptr;
  return t.kernels[(int)device][it->second].get();
}

int32_t kernelId(std::string_view name) {
  ensureBuiltins();
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.idLocked(name);
}

const KernelInfo *kernelById(int32_t id, Device device) {
  ensureBuiltins();
  Table &t = table();
  if (!ByIdCache::byIdCacheGone) {
    ByIdCache &c = byIdCache;
    if (c.generation != t.generation.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(t.mu);
      c.generation = t.generation.load(std::memory_order_relaxed);
      for (int d = 0; d < kNumDevices; ++d) {
        c.kernels[d].clear();
        for (const auto &k : t.kernels[d])
          c.kernels[d].push_back(k.get());
      }
    }
    const std::vector<const KernelInfo *> &ks = c.kernels[(int)device];
    return id >= 0 && id < (int32_t)ks.size() ? ks[id] : nullptr;
  }
  std::lock_guard<std::mutex> lock(t.mu);
  if (id < 0 || id >= (int32_t)t.names.size())
    return nullptr;
  return t.kernels[(int)device][id].get();
}

std::vector<std::string> kernelNames(Device device) {
  ensureBuiltins();
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  std::vector<std::string> out;
  for (auto &k : t.kernels[(int)device])
    if (k)
      out.push_back(k->name);
  std::sort(out.begin(), out.end());
  return out;
}

Status callKernel(const KernelInfo &kernel, std::span<const Value> inputs, const Attrs &attrs,
                  std::vector<Value> &outputs) {
  return guard([&] {
    for (const Value &v : inputs)
      if (v.isTensor() && !v.tensor())
        throw Error("'" + kernel.name + "': null tensor operand");
    kernel.fn(inputs, attrs, outputs);
  });
}

Status callKernel(std::string_view name, std::span<const Value> inputs, const Attrs &attrs,
                  std::vector<Value> &outputs) {
  Device device = Device::CPU;
  for (const Value &v : inputs)
    if (v.isTensor() && v.tensor() && v.tensor().device() != Device::CPU) {
      device = v.tensor().device();
      break;
    }
  const KernelInfo *k = findKernel(name, device);
  if (!k)
    return Status::error("no kernel for op '" + std::string(name) + "' on device '" +
                         deviceName(device) + "'");
  return callKernel(*k, inputs, attrs, outputs);
}

std::vector<Value> runAll(std::string_view name, std::vector<Value> inputs, const Attrs &attrs) {
  std::vector<Value> outs;
  Status s = callKernel(name, inputs, attrs, outs);
  if (!s)
    throw Error(s.message());
  return outs;
}

Tensor run(std::string_view name, std::vector<Value> inputs, const Attrs &attrs) {
  std::vector<Value> outs = runAll(name, std::move(inputs), attrs);
  check(!outs.empty() && outs[0].isTensor(), "'" + std::string(name) + "' returned no tensor");
  return outs[0].tensor();
}

} // namespace dlm::rt
