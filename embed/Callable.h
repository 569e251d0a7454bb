//===- embed/Callable.h - A def a host calls, compiled per argument types --===//
//
// What stands behind a dlm_module and a dlm_function of the C API (include/dlm/dlm.h):
//   - Module: a checked program (compiler/driver/Entry.h) and how its calls compile and run;
//   - HostCallable: a def or its gradient, with the code compiled for each list of argument types
//     it was called with. A call (1) checks the arguments the API can take (kinds, DLPack dtypes
//     and devices, arity); (2) finds compiled code whose parameter types the arguments match —
//     dtype, rank and static dims equal, each symbolic dim the same size wherever it appears —
//     under a shared lock, else compiles once under an exclusive one (a failed compile is kept
//     too, so the same bad call fails fast); (3) wraps the tensors without copying where their
//     layout allows; (4) runs the code and builds the result tree;
//   - Value: a result tree, shared by the result handles of its parts.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_EMBED_CALLABLE_H
#define DLM_EMBED_CALLABLE_H

#include "compiler/driver/Entry.h"
#include "dlm/dlm.h"
#include "runtime/Tensor.h"

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace dlm::embed {

/// What a failed API call reports (dlm_status).
struct Failure {
  dlm_error_code code = DLM_OK;
  std::string message; ///< diagnostic text, ending in a newline
  explicit operator bool() const { return code != DLM_OK; }
  static Failure invalid(const std::string &what) {
    return {DLM_ERROR_INVALID_ARGUMENT, "dlm: error: " + what + "\n"};
  }
};

struct Module {
  std::shared_ptr<LoadedProgram> program;
  EntryOptions options;
};

/// A result: a tensor, a number, a tuple of results or none.
struct Value {
  dlm_kind kind = DLM_KIND_NONE;
  rt::Tensor tensor;
  int64_t i = 0;
  double f = 0;
  std::vector<std::shared_ptr<Value>> elements;
  /// Its type as dlm prints it, with the sizes it has ("(f32[], f32[32, 10])").
  const std::string &typeString();

private:
  std::once_flag typeOnce;
  std::string type;
};

class HostCallable {
public:
  HostCallable(std::shared_ptr<Module> module, const DefInfo &def, EntrySpec spec)
      : module(std::move(module)), def(def), spec(std::move(spec)) {}

  /// Calls with `args`; the result tree in `result`.
  Failure call(const dlm_arg *args, int32_t numArgs, std::shared_ptr<Value> &result);

private:
  struct Compiled {
    std::vector<Type> params;         ///< per argument, strs included
    std::vector<std::string> strings; ///< the values of the str arguments, in order
    std::unique_ptr<EntryPoint> entry;
    Failure failure; ///< why it did not compile
  };
  /// The code for `args`, compiled now when there is none; null with `failure`.
  const Compiled *find(const dlm_arg *args, int32_t numArgs, Failure &failure);

  std::shared_ptr<Module> module; ///< keeps `def` alive
  const DefInfo &def;
  EntrySpec spec;
  std::shared_mutex lock; ///< guards `compiled`
  std::vector<std::unique_ptr<Compiled>> compiled;
};

/// A new DLManagedTensor sharing `t` (it holds a reference until its deleter runs).
DLManagedTensor *toDLPack(const rt::Tensor &t);

} // namespace dlm::embed

#endif // DLM_EMBED_CALLABLE_H
