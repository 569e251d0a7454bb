//===- runtime/AotLibrary.cpp - The typed functions of an AOT library, run -===//
//
// dlm_lib_call: wraps the host's arrays as tensors (views, no copy), runs an export's compiled
// entry and copies each result into the host's array. An entry's signature is parsed and its
// `init` run on its first call, under one lock; later calls read the parsed state without one.
//
//===----------------------------------------------------------------------===//
#include "runtime/AotLibrary.h"

#include "runtime/CApi.h"
#include "runtime/CpuDispatch.h"
#include "runtime/Tensor.h"

#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

using namespace dlm;
using namespace dlm::rt;

namespace {

thread_local std::string lastLibError;

/// One leaf of an argument or result: a dim >= 0 is a size, -1 - k the k-th symbolic size.
struct Leaf {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> dims;
};

/// What the first call of an entry made of it.
struct EntryState {
  std::vector<std::string> symbols;
  std::vector<Leaf> inputs, outputs;
  int32_t (*main)(void *const *, void **) = nullptr;
  std::string initError; ///< non-empty: the signature or `init` failed, and every call fails so
};

std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  if (s.empty())
    return parts;
  for (size_t start = 0;;) {
    size_t end = s.find(separator, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos)
      return parts;
    start = end + 1;
  }
}

/// Parses "name:dtype[d0,d1]" into `leaf`; false when it is malformed or names an unknown symbol.
bool parseLeaf(std::string_view text, const std::vector<std::string> &symbols, Leaf &leaf) {
  size_t colon = text.find(':'), open = text.find('[');
  if (colon == std::string_view::npos || open == std::string_view::npos || open < colon ||
      text.back() != ']')
    return false;
  leaf.name = std::string(text.substr(0, colon));
  std::optional<DType> dtype = parseDType(text.substr(colon + 1, open - colon - 1));
  if (!dtype)
    return false;
  leaf.dtype = *dtype;
  for (std::string_view dim : split(text.substr(open + 1, text.size() - open - 2), ',')) {
    if (!dim.empty() && dim.front() >= '0' && dim.front() <= '9') {
      leaf.dims.push_back(std::stoll(std::string(dim)));
      continue;
    }
    size_t k = 0;
    while (k < symbols.size() && symbols[k] != dim)
      ++k;
    if (k == symbols.size())
      return false;
    leaf.dims.push_back(-1 - int64_t(k));
  }
  return true;
}

bool parseSignature(std::string_view signature, EntryState &state) {
  std::vector<std::string_view> sections = split(signature, '|');
  if (sections.size() != 3)
    return false;
  for (std::string_view symbol : split(sections[0], ','))
    state.symbols.emplace_back(symbol);
  for (int part = 1; part < 3; ++part)
    for (std::string_view text : split(sections[part], ';')) {
      Leaf leaf;
      if (!parseLeaf(text, state.symbols, leaf))
        return false;
      (part == 1 ? state.inputs : state.outputs).push_back(std::move(leaf));
    }
  return true;
}

/// The state of `entry`, made by its first call: the parsed signature, FMA or baseline code
/// chosen, `init` run.
const EntryState &stateOf(dlm_lib_entry *entry) {
  if (void *state = __atomic_load_n(&entry->state, __ATOMIC_ACQUIRE))
    return *static_cast<const EntryState *>(state);
  static std::mutex lock;
  std::lock_guard<std::mutex> guard(lock);
  if (void *state = __atomic_load_n(&entry->state, __ATOMIC_ACQUIRE))
    return *static_cast<const EntryState *>(state);
  auto *state = new EntryState(); // lives as long as the process, like the entry's constants
  bool fma = entry->main_fma && entry->init_fma && dlm_use_fma();
  state->main = fma ? entry->main_fma : entry->main;
  if (entry->abi != DLM_LIB_ABI) {
    state->initError = "internal error: '" + std::string(entry->name) + "' was generated for " +
                       "library ABI " + std::to_string(entry->abi) + ", this runtime has " +
                       std::to_string(DLM_LIB_ABI) + "\n";
  } else if (!parseSignature(entry->signature, *state)) {
    state->initError = "internal error: malformed signature of '" + std::string(entry->name) +
                       "': " + entry->signature + "\n";
  } else {
    dlm_clear_error();
    if ((fma ? entry->init_fma : entry->init)() != 0)
      state->initError = dlm_last_error_report();
  }
  __atomic_store_n(&entry->state, state, __ATOMIC_RELEASE);
  return *state;
}

int32_t fail(int32_t status, std::string message) {
  lastLibError = std::move(message);
  return status;
}

/// The shape of `leaf` at the symbolic `sizes`.
Shape shapeOf(const Leaf &leaf, const int64_t *sizes) {
  Shape shape;
  for (int64_t d : leaf.dims)
    shape.push_back(d >= 0 ? d : sizes[-1 - d]);
  return shape;
}

/// The host's array `data` as a tensor of `leaf` at `sizes` (a view: dlm never writes into it).
Tensor viewOf(const Leaf &leaf, const int64_t *sizes, const void *data) {
  Shape shape = shapeOf(leaf, sizes);
  int64_t numel = numelOf(shape);
  if (numel == 0)
    return Tensor::empty(leaf.dtype, shape);
  return Tensor::external(leaf.dtype, shape, contiguousStrides(shape), const_cast<void *>(data),
                          size_t(numel) * dtypeSize(leaf.dtype), nullptr, nullptr);
}

/// Copies result `t` into the host's array `out` after checking it has the shape `leaf` says.
int32_t copyOut(const Leaf &leaf, const int64_t *sizes, const Tensor &t, void *out,
                const char *entryName) {
  Shape expected = shapeOf(leaf, sizes);
  if (t.dtype() != leaf.dtype || t.shape() != expected)
    return fail(1, "internal error: result '" + leaf.name + "' of '" + entryName + "' is " +
                       t.typeString() + ", the header says " + std::string(dtypeName(leaf.dtype)) +
                       shapeString(expected) + "\n");
  if (!out)
    return 0;
  Tensor dense = t.contiguous();
  std::memcpy(out, dense.rawData(), size_t(dense.numel()) * dense.elementSize());
  return 0;
}

/// Checks the host's sizes and inputs; an error message for the first bad one, else "".
std::string checkCall(const EntryState &state, const char *entryName, const int64_t *sizes,
                      const void *const *inputs) {
  for (size_t k = 0; k < state.symbols.size(); ++k)
    if (sizes[k] < 0)
      return std::string("dlm: error: size '") + state.symbols[k] + "' of '" + entryName + "' is " +
             std::to_string(sizes[k]) + ", expected a size >= 0\n";
  for (size_t i = 0; i < state.inputs.size(); ++i)
    if (!inputs[i] && numelOf(shapeOf(state.inputs[i], sizes)) != 0)
      return "dlm: error: argument '" + state.inputs[i].name + "' of '" + entryName +
             "' is a null pointer\n";
  return "";
}

int32_t call(dlm_lib_entry *entry, const int64_t *sizes, const void *const *inputs,
             void *const *outputs) {
  const EntryState &state = stateOf(entry);
  if (!state.initError.empty())
    return fail(1, state.initError);
  if (std::string bad = checkCall(state, entry->name, sizes, inputs); !bad.empty())
    return fail(2, bad);
  std::vector<Tensor> args;
  std::vector<void *> argHandles, results(state.outputs.size(), nullptr);
  for (size_t i = 0; i < state.inputs.size(); ++i) {
    args.push_back(viewOf(state.inputs[i], sizes, inputs[i]));
    argHandles.push_back(args.back().get());
  }
  dlm_clear_error();
  bool ran = state.main(argHandles.data(), results.data()) == 0;
  // A failed run may have stored some results already: they are released all the same.
  std::vector<Tensor> owned;
  for (void *r : results)
    owned.push_back(Tensor::adopt(static_cast<TensorImpl *>(r)));
  if (!ran)
    return fail(1, dlm_last_error_report());
  int32_t status = 0;
  for (size_t i = 0; i < owned.size() && status == 0; ++i)
    status = copyOut(state.outputs[i], sizes, owned[i], outputs[i], entry->name);
  return status;
}

} // namespace

extern "C" {

int32_t dlm_lib_call(dlm_lib_entry *entry, const int64_t *sizes, const void *const *inputs,
                     void *const *outputs) {
  lastLibError.clear();
  try {
    return call(entry, sizes, inputs, outputs);
  } catch (const std::exception &e) {
    return fail(1, std::string("dlm: error: ") + e.what() + "\n");
  }
}

const char *dlm_lib_last_error(void) { return lastLibError.c_str(); }

} // extern "C"
