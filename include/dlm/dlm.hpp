//===- include/dlm/dlm.hpp - Calling dlm programs from C++ ----------------===//
//
// A thin C++17 layer over include/dlm/dlm.h: the handles as move-only RAII objects, a failed
// status as an exception (dlm::Error, carrying the status's code and diagnostic text), and
// arguments built from initializer lists. Header-only; link libdlm as for the C API.
//
//   dlm::Module m = dlm::Module::load("model.dlm");
//   dlm::Function predict = m.function("predict");
//   dlm::Result y = predict({dlm::Arg(w), dlm::Arg(b), dlm::Arg(x)});   // DLTensor w, b, x
//   DLManagedTensor *out = y.tensor();
//
//===----------------------------------------------------------------------===//
#ifndef DLM_DLM_HPP
#define DLM_DLM_HPP

#include "dlm/dlm.h"

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dlm {

/// A failed call: what() is the diagnostic text, code() a dlm_error_code.
class Error : public std::runtime_error {
public:
  Error(int32_t code, const std::string &message) : std::runtime_error(message), code_(code) {}
  int32_t code() const { return code_; }

private:
  int32_t code_;
};

/// Throws the status as an Error (and frees it); does nothing for success.
inline void check(dlm_status *status) {
  if (!status)
    return;
  Error error(dlm_status_code(status), dlm_status_message(status));
  dlm_status_free(status);
  throw error;
}

namespace detail {
/// Owns one handle of the C API; `Free` releases it.
template <typename Handle, dlm_status *(*Free)(Handle *)> class Owned {
public:
  Owned() = default;
  explicit Owned(Handle *h) : handle_(h) {}
  Owned(Owned &&o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  Owned &operator=(Owned &&o) noexcept {
    reset(std::exchange(o.handle_, nullptr));
    return *this;
  }
  Owned(const Owned &) = delete;
  Owned &operator=(const Owned &) = delete;
  ~Owned() { reset(nullptr); }
  Handle *get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

private:
  void reset(Handle *h) {
    if (handle_)
      dlm_status_free(Free(handle_)); // a handle it owns is live: this cannot fail
    handle_ = h;
  }
  Handle *handle_ = nullptr;
};
} // namespace detail

/// One argument: a tensor (borrowed DLTensor, or handed-over DLManagedTensor), a number, a str or
/// a tuple of arguments.
class Arg {
public:
  Arg(const DLTensor &t) : arg_(dlm_arg_tensor(&t)) {}
  Arg(DLManagedTensor *t) : arg_(dlm_arg_managed(t)) {}
  Arg(int64_t v) : arg_(dlm_arg_int(v)) {}
  Arg(int v) : arg_(dlm_arg_int(v)) {}
  Arg(double v) : arg_(dlm_arg_float(v)) {}
  Arg(bool v) : arg_(dlm_arg_bool(v)) {}
  Arg(const char *v) : arg_(dlm_arg_str(v)) {}
  Arg(const std::string &v) : arg_(dlm_arg_str(v.c_str())) {}
  /// A tuple.
  static Arg tuple(std::vector<Arg> elements) {
    Arg a;
    a.elements_ = std::move(elements);
    a.arg_.kind = DLM_KIND_TUPLE;
    return a;
  }
  /// The C form (valid while this Arg lives).
  const dlm_arg &c() {
    if (arg_.kind == DLM_KIND_TUPLE) {
      cElements_.clear();
      for (Arg &e : elements_)
        cElements_.push_back(e.c());
      arg_.count = int32_t(cElements_.size());
      arg_.value.elements = cElements_.data();
    }
    return arg_;
  }

private:
  Arg() = default;
  dlm_arg arg_{};
  std::vector<Arg> elements_;
  std::vector<dlm_arg> cElements_;
};

/// A call's result: a tensor, a number, a tuple of results, or none.
class Result {
public:
  explicit Result(dlm_result *r) : owned_(r) {}
  int32_t kind() const {
    int32_t k = 0;
    check(dlm_result_kind(owned_.get(), &k, nullptr));
    return k;
  }
  /// A tuple's number of elements.
  int32_t size() const {
    int32_t n = 0;
    check(dlm_result_kind(owned_.get(), nullptr, &n));
    return n;
  }
  Result operator[](int32_t i) const {
    dlm_result *e = nullptr;
    check(dlm_result_element(owned_.get(), i, &e));
    return Result(e);
  }
  /// A new DLManagedTensor sharing the tensor's memory; the caller calls its deleter.
  DLManagedTensor *tensor() const {
    DLManagedTensor *t = nullptr;
    check(dlm_result_tensor(owned_.get(), &t));
    return t;
  }
  int64_t toInt() const {
    int64_t v = 0;
    check(dlm_result_int(owned_.get(), &v));
    return v;
  }
  double toFloat() const {
    double v = 0;
    check(dlm_result_float(owned_.get(), &v));
    return v;
  }
  bool toBool() const {
    int32_t v = 0;
    check(dlm_result_bool(owned_.get(), &v));
    return v != 0;
  }
  std::string type() const {
    const char *t = nullptr;
    check(dlm_result_type(owned_.get(), &t));
    return t;
  }
  dlm_result *get() const { return owned_.get(); }

private:
  detail::Owned<dlm_result, dlm_result_free> owned_;
};

/// A def of a module, or its gradient, to call.
class Function {
public:
  explicit Function(dlm_function *f) : owned_(f) {}
  Result operator()(std::initializer_list<Arg> args) const { return call(std::vector<Arg>(args)); }
  Result call(std::vector<Arg> args) const {
    std::vector<dlm_arg> c;
    c.reserve(args.size());
    for (Arg &a : args)
      c.push_back(a.c());
    dlm_result *r = nullptr;
    check(dlm_call(owned_.get(), c.data(), int32_t(c.size()), &r));
    return Result(r);
  }
  dlm_function *get() const { return owned_.get(); }

private:
  detail::Owned<dlm_function, dlm_function_free> owned_;
};

/// A def's name, signature and parameters.
struct Def {
  std::string name, signature;
  std::vector<std::string> params, annotations;
  int32_t required = 0;
};

/// A loaded, checked program.
class Module {
public:
  static Module load(const std::string &path, const dlm_options *options = nullptr) {
    dlm_module *m = nullptr;
    check(dlm_module_load(path.c_str(), options, &m));
    return Module(m);
  }
  static Module fromSource(const std::string &text, const std::string &name = "<source>",
                           int32_t firstLine = 1, const dlm_options *options = nullptr) {
    dlm_source source{name.c_str(), text.c_str(), firstLine, 0};
    dlm_module *m = nullptr;
    check(dlm_module_load_sources(&source, 1, options, &m));
    return Module(m);
  }
  /// A program given as parts of one main file (dlm_source: name, text, first line, indent).
  static Module fromSources(const std::vector<dlm_source> &sources,
                            const dlm_options *options = nullptr) {
    dlm_module *m = nullptr;
    check(dlm_module_load_sources(sources.data(), int32_t(sources.size()), options, &m));
    return Module(m);
  }
  std::vector<Def> defs() const {
    int32_t n = 0;
    check(dlm_module_num_defs(owned_.get(), &n));
    std::vector<Def> out(size_t(n > 0 ? n : 0));
    for (int32_t i = 0; i < n; ++i) {
      const char *name = nullptr, *signature = nullptr;
      check(dlm_module_def(owned_.get(), i, &name, &signature));
      Def &d = out[size_t(i)];
      d.name = name;
      d.signature = signature;
      int32_t count = 0;
      check(dlm_module_def_params(owned_.get(), i, &count, &d.required));
      for (int32_t p = 0; p < count; ++p) {
        const char *param = nullptr, *annotation = nullptr;
        check(dlm_module_def_param(owned_.get(), i, p, &param, &annotation));
        d.params.emplace_back(param);
        d.annotations.emplace_back(annotation);
      }
    }
    return out;
  }
  Function function(const std::string &def) const {
    dlm_function *f = nullptr;
    check(dlm_module_function(owned_.get(), def.c_str(), &f));
    return Function(f);
  }
  /// grad(def, argnums); value_and_grad with `withValue`.
  Function grad(const std::string &def, std::vector<int64_t> argnums = {},
                bool withValue = false) const {
    dlm_function *f = nullptr;
    int32_t flags = withValue ? DLM_GRAD_WITH_VALUE : 0;
    check(dlm_module_grad(owned_.get(), def.c_str(), argnums.data(), int32_t(argnums.size()), flags,
                          &f));
    return Function(f);
  }
  Function valueAndGrad(const std::string &def, std::vector<int64_t> argnums = {}) const {
    return grad(def, std::move(argnums), true);
  }
  dlm_module *get() const { return owned_.get(); }

private:
  explicit Module(dlm_module *m) : owned_(m) {}
  detail::Owned<dlm_module, dlm_module_free> owned_;
};

} // namespace dlm

#endif // DLM_DLM_HPP
