//===- embed/Api.cpp - The C API of include/dlm/dlm.h ----------------------===//
//
// Each function checks its handles and pointers, does its work in C++ (embed/Callable.h, the
// driver's compiler/driver/Entry.h) and turns every failure into a dlm_status: no exception
// leaves this file and no bad argument is dereferenced.
//
//===----------------------------------------------------------------------===//
#include "dlm/dlm.h"

#include "embed/Callable.h"
#include "embed/Handles.h"

#include <new>

/// What a dlm_status* points to.
struct dlm_status {
  int32_t code;
  std::string message;
};

namespace dlm::embed {
namespace {

dlm_status *fail(dlm_error_code code, std::string message) {
  return new (std::nothrow) dlm_status{code, std::move(message)};
}

dlm_status *fail(const Failure &f) { return f ? fail(f.code, f.message) : nullptr; }

dlm_status *invalid(const std::string &what) {
  return fail(DLM_ERROR_INVALID_ARGUMENT, "dlm: error: " + what + "\n");
}

/// Runs `body` (returning a status), turning what it throws into a status.
template <typename Body> dlm_status *guarded(Body &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(DLM_ERROR_RUNTIME, "dlm: error: out of memory\n");
  } catch (const rt::Error &e) {
    return fail(DLM_ERROR_RUNTIME, std::string("dlm: error: ") + e.what() + "\n");
  } catch (const std::exception &e) {
    return fail(DLM_ERROR_INTERNAL, std::string("dlm: error: internal error: ") + e.what() + "\n");
  }
}

template <typename T> uint64_t bits(const T *handle) { return reinterpret_cast<uint64_t>(handle); }

template <typename T> T *handleOf(uint64_t value) { return reinterpret_cast<T *>(value); }

/// The object behind `handle`, or null with the error status in `status`.
template <typename Object, typename Handle>
std::shared_ptr<Object> lookup(const Handle *handle, HandleKind kind, dlm_status *&status) {
  std::string error;
  std::shared_ptr<void> object = lookupHandle(bits(handle), kind, error);
  if (!object)
    status = invalid(error);
  return std::static_pointer_cast<Object>(object);
}

template <typename Handle> dlm_status *release(Handle *handle, HandleKind kind) {
  std::string error;
  return freeHandle(bits(handle), kind, error) ? nullptr : invalid(error);
}

template <typename Handle>
dlm_status *publish(HandleKind kind, std::shared_ptr<void> object, Handle **out) {
  uint64_t handle = createHandle(kind, std::move(object));
  if (!handle)
    return fail(DLM_ERROR_RUNTIME, "dlm: error: too many live handles\n");
  *out = handleOf<Handle>(handle);
  return nullptr;
}

EntryOptions entryOptions(const dlm_options *options) {
  EntryOptions o;
  if (!options || options->size < sizeof(dlm_options))
    return o;
  o.engine =
      options->engine == DLM_ENGINE_GRAPH ? EntryOptions::Engine::Graph : EntryOptions::Engine::JIT;
  o.optLevel = unsigned(std::clamp(options->opt_level, 0, 3));
  o.objectCache = options->object_cache != 0;
  o.numThreads = std::max(options->num_threads, 0);
  return o;
}

std::string checkOptions(const dlm_options *options) {
  if (!options)
    return "";
  if (options->size < sizeof(dlm_options))
    return "dlm_options.size is " + std::to_string(options->size) + ", expected at least " +
           std::to_string(sizeof(dlm_options)) + " (start from DLM_OPTIONS_INIT)";
  if (options->engine != DLM_ENGINE_JIT && options->engine != DLM_ENGINE_GRAPH)
    return "dlm_options.engine is " + std::to_string(options->engine) +
           ", expected DLM_ENGINE_JIT or DLM_ENGINE_GRAPH";
  if (options->opt_level < 0 || options->opt_level > 3)
    return "dlm_options.opt_level is " + std::to_string(options->opt_level) + ", expected 0 to 3";
  if (options->num_constants < 0 || (options->num_constants > 0 && !options->constants))
    return "dlm_options.constants is null or num_constants (" +
           std::to_string(options->num_constants) + ") negative";
  for (int32_t i = 0; i < options->num_constants; ++i) {
    const dlm_constant &c = options->constants[i];
    if (!c.name || !*c.name)
      return "dlm_options.constants[" + std::to_string(i) + "] has no name";
    if (c.kind != DLM_KIND_INT && c.kind != DLM_KIND_FLOAT && c.kind != DLM_KIND_BOOL)
      return "dlm_options.constants[" + std::to_string(i) + "] ('" + c.name + "') has kind " +
             std::to_string(c.kind) + ", expected DLM_KIND_INT, DLM_KIND_FLOAT or DLM_KIND_BOOL";
  }
  return "";
}

/// The constants of checked options, copied.
ProgramConstants constantsOf(const dlm_options *options) {
  ProgramConstants constants;
  for (int32_t i = 0; options && i < options->num_constants; ++i) {
    const dlm_constant &c = options->constants[i];
    if (c.kind == DLM_KIND_INT)
      constants[c.name] = c.i;
    else if (c.kind == DLM_KIND_FLOAT)
      constants[c.name] = c.f;
    else
      constants[c.name] = c.i != 0;
  }
  return constants;
}

/// Publishes a loaded program as a module, or reports why it did not load.
dlm_status *finishLoad(std::unique_ptr<LoadedProgram> program, const std::string &diagnostics,
                       const dlm_options *options, dlm_module **out) {
  if (!program) {
    bool io = diagnostics.find("error: no such file") != std::string::npos ||
              diagnostics.find("error: cannot read") != std::string::npos ||
              diagnostics.find("is a directory") != std::string::npos;
    return fail(io ? DLM_ERROR_IO : DLM_ERROR_COMPILE, diagnostics);
  }
  auto module = std::make_shared<Module>();
  module->program = std::move(program);
  module->options = entryOptions(options);
  return publish(HandleKind::Module, module, out);
}

const DefInfo *defAt(const Module &m, int32_t index, dlm_status *&status) {
  const auto &defs = m.program->defs();
  if (index < 0 || size_t(index) >= defs.size()) {
    status = invalid("def index " + std::to_string(index) + " is out of range (the module has " +
                     std::to_string(defs.size()) + " defs)");
    return nullptr;
  }
  return &defs[index];
}

dlm_status *makeFunction(dlm_module *handle, const char *def, EntrySpec spec, dlm_function **out) {
  if (!out)
    return invalid("no place for the dlm_function (null pointer)");
  *out = nullptr;
  dlm_status *status = nullptr;
  auto module = lookup<Module>(handle, HandleKind::Module, status);
  if (!module)
    return status;
  if (!def)
    return invalid("null def name");
  const DefInfo *info = module->program->findDef(def);
  if (!info) {
    std::string names;
    for (const DefInfo &d : module->program->defs())
      names += (names.empty() ? "" : ", ") + d.name;
    return invalid("the module has no def named '" + std::string(def) +
                   "' (its defs: " + (names.empty() ? "none" : names) + ")");
  }
  spec.def = def;
  return publish(HandleKind::Function, std::make_shared<HostCallable>(module, *info, spec), out);
}

/// The result behind `handle` when it is of `kind`.
std::shared_ptr<Value> resultOfKind(const dlm_result *handle, dlm_kind kind, const char *what,
                                    dlm_status *&status) {
  auto v = lookup<Value>(handle, HandleKind::Result, status);
  if (v && v->kind != kind) {
    status = invalid("the dlm_result is " + v->typeString() + ", not " + what);
    return nullptr;
  }
  return v;
}

/// dlm_result_int and its kin: the number `read` takes from the result when it is of `kind`.
template <typename T, typename Read>
dlm_status *readNumber(const dlm_result *result, dlm_kind kind, const char *what, T *value,
                       Read read) {
  return guarded([&]() -> dlm_status * {
    dlm_status *status = nullptr;
    auto v = resultOfKind(result, kind, what, status);
    if (!v)
      return status;
    if (!value)
      return invalid("no place for the value (null pointer)");
    *value = read(*v);
    return nullptr;
  });
}

} // namespace
} // namespace dlm::embed

using namespace dlm;
using namespace dlm::embed;

extern "C" {

int32_t dlm_api_version(void) { return DLM_API_VERSION; }

int32_t dlm_status_code(const dlm_status *status) { return status ? status->code : DLM_OK; }

const char *dlm_status_message(const dlm_status *status) {
  return status ? status->message.c_str() : "";
}

void dlm_status_free(dlm_status *status) { delete status; }

dlm_status *dlm_module_load(const char *path, const dlm_options *options, dlm_module **module) {
  return guarded([&]() -> dlm_status * {
    if (!module)
      return invalid("no place for the dlm_module (null pointer)");
    *module = nullptr;
    if (!path)
      return invalid("null path");
    if (std::string error = checkOptions(options); !error.empty())
      return invalid(error);
    std::string diagnostics;
    auto program = LoadedProgram::loadFile(path, diagnostics, constantsOf(options));
    return finishLoad(std::move(program), diagnostics, options, module);
  });
}

dlm_status *dlm_module_load_sources(const dlm_source *sources, int32_t count,
                                    const dlm_options *options, dlm_module **module) {
  return guarded([&]() -> dlm_status * {
    if (!module)
      return invalid("no place for the dlm_module (null pointer)");
    *module = nullptr;
    if (count <= 0 || !sources)
      return invalid("no sources given (" + std::to_string(count) + ")");
    if (std::string error = checkOptions(options); !error.empty())
      return invalid(error);
    std::vector<SourceText> texts;
    for (int32_t i = 0; i < count; ++i) {
      if (!sources[i].text)
        return invalid("source " + std::to_string(i) + " has no text");
      texts.push_back({sources[i].name ? sources[i].name : "<source>", sources[i].text,
                       unsigned(std::max(sources[i].first_line, 1)),
                       unsigned(std::max(sources[i].indent, 0))});
    }
    std::string diagnostics;
    auto program = LoadedProgram::loadSources(std::move(texts), diagnostics, constantsOf(options));
    return finishLoad(std::move(program), diagnostics, options, module);
  });
}

dlm_status *dlm_module_free(dlm_module *module) {
  return guarded([&] { return release(module, HandleKind::Module); });
}

dlm_status *dlm_module_num_defs(const dlm_module *module, int32_t *count) {
  return guarded([&]() -> dlm_status * {
    dlm_status *status = nullptr;
    auto m = lookup<Module>(module, HandleKind::Module, status);
    if (!m)
      return status;
    if (!count)
      return invalid("no place for the count (null pointer)");
    *count = int32_t(m->program->defs().size());
    return nullptr;
  });
}

dlm_status *dlm_module_def(const dlm_module *module, int32_t index, const char **name,
                           const char **signature) {
  return guarded([&]() -> dlm_status * {
    dlm_status *status = nullptr;
    auto m = lookup<Module>(module, HandleKind::Module, status);
    const DefInfo *def = m ? defAt(*m, index, status) : nullptr;
    if (!def)
      return status;
    if (name)
      *name = def->name.c_str();
    if (signature)
      *signature = def->signature.c_str();
    return nullptr;
  });
}

dlm_status *dlm_module_def_params(const dlm_module *module, int32_t index, int32_t *count,
                                  int32_t *required) {
  return guarded([&]() -> dlm_status * {
    dlm_status *status = nullptr;
    auto m = lookup<Module>(module, HandleKind::Module, status);
    const DefInfo *def = m ? defAt(*m, index, status) : nullptr;
    if (!def)
      return status;
    if (count)
      *count = int32_t(def->params.size());
    if (required)
      *required = int32_t(def->numRequired());
    return nullptr;
  });
}

dlm_status *dlm_module_def_param(const dlm_module *module, int32_t index, int32_t param,
                                 const char **name, const char **annotation) {
  return guarded([&]() -> dlm_status * {
    dlm_status *status = nullptr;
    auto m = lookup<Module>(module, HandleKind::Module, status);
    const DefInfo *def = m ? defAt(*m, index, status) : nullptr;
    if (!def)
      return status;
    if (param < 0 || size_t(param) >= def->params.size())
      return invalid("parameter index " + std::to_string(param) + " is out of range ('" +
                     def->name + "' has " + std::to_string(def->params.size()) + ")");
    if (name)
      *name = def->params[param].name.c_str();
    if (annotation)
      *annotation = def->params[param].annotation.c_str();
    return nullptr;
  });
}

dlm_status *dlm_module_function(dlm_module *module, const char *def, dlm_function **function) {
  return guarded([&] { return makeFunction(module, def, EntrySpec{}, function); });
}

dlm_status *dlm_module_grad(dlm_module *module, const char *def, const int64_t *argnums,
                            int32_t num_argnums, int32_t flags, dlm_function **function) {
  return guarded([&]() -> dlm_status * {
    if (num_argnums < 0 || (num_argnums > 0 && !argnums))
      return invalid("no argnums given (" + std::to_string(num_argnums) + " at null)");
    if (flags & ~(DLM_GRAD_WITH_VALUE | DLM_GRAD_ARGNUMS_TUPLE))
      return invalid("unknown grad flags " + std::to_string(flags));
    EntrySpec spec;
    spec.kind = flags & DLM_GRAD_WITH_VALUE ? EntrySpec::Kind::ValueAndGrad : EntrySpec::Kind::Grad;
    spec.argnums.assign(argnums, argnums + num_argnums);
    spec.argnumsIsTuple = (flags & DLM_GRAD_ARGNUMS_TUPLE) != 0;
    return makeFunction(module, def, spec, function);
  });
}

dlm_status *dlm_function_free(dlm_function *function) {
  return guarded([&] { return release(function, HandleKind::Function); });
}

dlm_status *dlm_call(dlm_function *function, const dlm_arg *args, int32_t num_args,
                     dlm_result **result) {
  return guarded([&]() -> dlm_status * {
    if (!result)
      return invalid("no place for the dlm_result (null pointer)");
    *result = nullptr;
    dlm_status *status = nullptr;
    auto f = lookup<HostCallable>(function, HandleKind::Function, status);
    if (!f)
      return status;
    std::shared_ptr<Value> value;
    if (Failure failure = f->call(args, num_args, value))
      return fail(failure);
    return publish(HandleKind::Result, value, result);
  });
}

dlm_status *dlm_result_kind(const dlm_result *result, int32_t *kind, int32_t *count) {
  return guarded([&]() -> dlm_status * {
    dlm_status *status = nullptr;
    auto v = lookup<Value>(result, HandleKind::Result, status);
    if (!v)
      return status;
    if (kind)
      *kind = v->kind;
    if (count)
      *count = int32_t(v->elements.size());
    return nullptr;
  });
}

dlm_status *dlm_result_element(const dlm_result *result, int32_t index, dlm_result **element) {
  return guarded([&]() -> dlm_status * {
    if (!element)
      return invalid("no place for the element (null pointer)");
    *element = nullptr;
    dlm_status *status = nullptr;
    auto v = resultOfKind(result, DLM_KIND_TUPLE, "a tuple", status);
    if (!v)
      return status;
    if (index < 0 || size_t(index) >= v->elements.size())
      return invalid("element " + std::to_string(index) + " is out of range for a tuple of " +
                     std::to_string(v->elements.size()));
    return publish(HandleKind::Result, v->elements[index], element);
  });
}

dlm_status *dlm_result_tensor(const dlm_result *result, DLManagedTensor **tensor) {
  return guarded([&]() -> dlm_status * {
    if (!tensor)
      return invalid("no place for the tensor (null pointer)");
    *tensor = nullptr;
    dlm_status *status = nullptr;
    auto v = resultOfKind(result, DLM_KIND_TENSOR, "a tensor", status);
    if (!v)
      return status;
    *tensor = toDLPack(v->tensor);
    return nullptr;
  });
}

dlm_status *dlm_result_int(const dlm_result *result, int64_t *value) {
  return readNumber(result, DLM_KIND_INT, "an int", value, [](const Value &v) { return v.i; });
}

dlm_status *dlm_result_float(const dlm_result *result, double *value) {
  return readNumber(result, DLM_KIND_FLOAT, "a float", value, [](const Value &v) { return v.f; });
}

dlm_status *dlm_result_bool(const dlm_result *result, int32_t *value) {
  return readNumber(result, DLM_KIND_BOOL, "a bool", value,
                    [](const Value &v) { return int32_t(v.i); });
}

dlm_status *dlm_result_type(const dlm_result *result, const char **type) {
  return guarded([&]() -> dlm_status * {
    dlm_status *status = nullptr;
    auto v = lookup<Value>(result, HandleKind::Result, status);
    if (!v)
      return status;
    if (!type)
      return invalid("no place for the type (null pointer)");
    *type = v->typeString().c_str();
    return nullptr;
  });
}

dlm_status *dlm_result_free(dlm_result *result) {
  return guarded([&] { return release(result, HandleKind::Result); });
}

} // extern "C"
