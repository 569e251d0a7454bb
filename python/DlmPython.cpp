//===- python/DlmPython.cpp - The Python module `dlm` (pybind11) -----------===//
//
// Calling dlm defs from Python (docs/embedding.md "Python"), over the C API (include/dlm/dlm.hpp,
// linked with libdlm.so). This is dlm._dlm; the package python/dlm re-exports it and adds
// @dlm.jit (python/dlm/jit.py, docs/python.md), which loads its functions with load_parts.
//   m = dlm.load("model.dlm")               # or dlm.loads(text, name="<source>")
//   y = m.predict(w, b, x)                  # numpy arrays in and out
//   g = dlm.grad(m.loss, argnums=(0, 1))(w, b, x, y)
// Arguments: anything with the buffer protocol (numpy arrays and scalars: borrowed, no copy when
// the strides allow), anything with __dlpack__ (torch, JAX: handed over through its capsule),
// bool, int, float, str, and tuples or lists of them. Results: numpy arrays that own dlm's
// memory (no copy), Python numbers, tuples, None. A failed call raises dlm.Error (a subclass per
// dlm_error_code) whose message is the diagnostic text. The GIL is released while dlm compiles
// and runs.
//
//===----------------------------------------------------------------------===//
#include "dlm/dlm.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;

namespace {

/// The exception classes: dlm.Error and one subclass per dlm_error_code.
struct Exceptions {
  py::object base, invalid, compile, runtime, io, internal;
  const py::object &of(int32_t code) const {
    switch (code) {
    case DLM_ERROR_INVALID_ARGUMENT:
      return invalid;
    case DLM_ERROR_COMPILE:
      return compile;
    case DLM_ERROR_RUNTIME:
      return runtime;
    case DLM_ERROR_IO:
      return io;
    case DLM_ERROR_INTERNAL:
      return internal;
    default:
      return base;
    }
  }
};
Exceptions *exceptions = nullptr;

/// A dlm::Error as the Python exception of its code, with `code` set.
[[noreturn]] void raise(const dlm::Error &e) {
  std::string message = e.what();
  while (!message.empty() && message.back() == '\n')
    message.pop_back();
  py::object error = exceptions->of(e.code())(message);
  error.attr("code") = e.code();
  PyErr_SetObject(exceptions->of(e.code()).ptr(), error.ptr());
  throw py::error_already_set();
}

/// The DLPack dtype of a buffer's struct format, when it has one (dlm's own, or one dlm names
/// in its error).
bool dlpackType(const py::buffer_info &info, DLDataType &type) {
  std::string format = info.format;
  if (!format.empty() && (format[0] == '<' || format[0] == '=' || format[0] == '@'))
    format = format.substr(1);
  if (format.size() != 1)
    return false;
  uint8_t bits = uint8_t(info.itemsize * 8);
  switch (format[0]) {
  case 'f':
  case 'd':
  case 'e':
    type = {kDLFloat, bits, 1};
    return true;
  case 'b':
  case 'h':
  case 'i':
  case 'l':
  case 'q':
    type = {kDLInt, bits, 1};
    return true;
  case 'B':
  case 'H':
  case 'I':
  case 'L':
  case 'Q':
    type = {kDLUInt, bits, 1};
    return true;
  case '?':
    type = {DLM_DLPACK_BOOL, 8, 1};
    return true;
  default:
    return false;
  }
}

/// What a call's arguments hold on to until it returns: buffers, their shapes and strides,
/// and the numpy copies of buffers whose strides are not whole elements.
struct Arguments {
  std::vector<std::unique_ptr<py::buffer_info>> buffers;
  std::vector<std::unique_ptr<DLTensor>> tensors;
  std::vector<std::vector<int64_t>> dims;
  std::vector<py::object> keep;
  std::vector<DLManagedTensor *> managed; ///< handed to dlm by the call, if it is made
  bool called = false;

  Arguments() = default;
  Arguments(const Arguments &) = delete;
  Arguments &operator=(const Arguments &) = delete;
  /// A call that never happened (a later argument was refused) hands nothing over.
  ~Arguments() {
    if (!called)
      for (DLManagedTensor *m : managed)
        if (m->deleter)
          m->deleter(m);
  }

  dlm::Arg convert(const py::handle &x, size_t index, int depth) {
    if (depth > 64)
      throw py::value_error("argument " + std::to_string(index + 1) +
                            " is nested more than 64 tuples deep");
    if (py::isinstance<py::bool_>(x))
      return dlm::Arg(x.cast<bool>());
    if (py::isinstance<py::int_>(x))
      return dlm::Arg(x.cast<int64_t>());
    if (py::isinstance<py::float_>(x))
      return dlm::Arg(x.cast<double>());
    if (py::isinstance<py::str>(x)) {
      keep.push_back(py::reinterpret_borrow<py::object>(x));
      return dlm::Arg(PyUnicode_AsUTF8(x.ptr()));
    }
    if (py::isinstance<py::tuple>(x) || py::isinstance<py::list>(x)) {
      std::vector<dlm::Arg> elements;
      for (py::handle e : x)
        elements.push_back(convert(e, index, depth + 1));
      return dlm::Arg::tuple(std::move(elements));
    }
    if (!py::isinstance<py::array>(x) && py::hasattr(x, "__dlpack__"))
      return fromDLPack(x);
    if (PyObject_CheckBuffer(x.ptr()))
      return fromBuffer(x, index);
    throw py::type_error("argument " + std::to_string(index + 1) + " is of type '" +
                         std::string(py::str(py::type::of(x).attr("__name__"))) +
                         "': dlm takes arrays (the buffer protocol or __dlpack__), bool, int, "
                         "float, str and tuples of them");
  }

  /// A buffer (a numpy array) lent for the call: zero-copy when its strides are whole elements.
  dlm::Arg fromBuffer(const py::handle &x, size_t index) {
    auto info = std::make_unique<py::buffer_info>(py::reinterpret_borrow<py::buffer>(x).request());
    bool whole = info->itemsize > 0;
    for (py::ssize_t s : info->strides)
      whole &= s % info->itemsize == 0;
    if (!whole) {
      py::object dense = py::module_::import("numpy").attr("ascontiguousarray")(x);
      keep.push_back(dense);
      info = std::make_unique<py::buffer_info>(py::reinterpret_borrow<py::buffer>(dense).request());
    }
    auto t = std::make_unique<DLTensor>();
    if (!dlpackType(*info, t->dtype))
      throw py::type_error("argument " + std::to_string(index + 1) + " has buffer format '" +
                           info->format + "', which dlm does not take (f32, f64, i32, i64, bool)");
    t->data = info->ptr;
    t->device = {kDLCPU, 0};
    t->ndim = int32_t(info->ndim);
    std::vector<int64_t> shape(info->shape.begin(), info->shape.end()), strides;
    for (py::ssize_t s : info->strides)
      strides.push_back(int64_t(s / info->itemsize));
    dims.push_back(std::move(shape));
    t->shape = dims.back().data();
    dims.push_back(std::move(strides));
    t->strides = dims.back().data();
    t->byte_offset = 0;
    buffers.push_back(std::move(info));
    tensors.push_back(std::move(t));
    return dlm::Arg(*tensors.back());
  }

  /// An object with __dlpack__: its DLManagedTensor handed over (the capsule marked used, as
  /// the protocol asks).
  dlm::Arg fromDLPack(const py::handle &x) {
    py::object capsule = x.attr("__dlpack__")();
    auto *managed = static_cast<DLManagedTensor *>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (!managed)
      throw py::error_already_set();
    PyCapsule_SetName(capsule.ptr(), "used_dltensor");
    PyCapsule_SetDestructor(capsule.ptr(), nullptr);
    this->managed.push_back(managed);
    return dlm::Arg(managed);
  }
};

/// The numpy dtype of a DLPack one dlm returns.
py::dtype numpyType(DLDataType t) {
  if (t.code == kDLFloat)
    return t.bits == 32 ? py::dtype::of<float>() : py::dtype::of<double>();
  if (t.code == kDLInt)
    return t.bits == 32 ? py::dtype::of<int32_t>() : py::dtype::of<int64_t>();
  return py::dtype::of<bool>();
}

/// A result as Python values: numpy arrays that own dlm's memory, numbers, tuples, None.
py::object toPython(const dlm::Result &r) {
  switch (r.kind()) {
  case DLM_KIND_TENSOR: {
    DLManagedTensor *managed = r.tensor();
    const DLTensor &t = managed->dl_tensor;
    py::capsule owner(managed, [](void *p) {
      auto *m = static_cast<DLManagedTensor *>(p);
      if (m->deleter)
        m->deleter(m);
    });
    py::dtype dtype = numpyType(t.dtype);
    std::vector<py::ssize_t> shape(t.shape, t.shape + t.ndim), strides(size_t(t.ndim));
    py::ssize_t step = dtype.itemsize();
    for (int32_t d = t.ndim - 1; d >= 0; --d) {
      strides[size_t(d)] = t.strides ? py::ssize_t(t.strides[d]) * dtype.itemsize() : step;
      step *= shape[size_t(d)];
    }
    return py::array(dtype, shape, strides, static_cast<char *>(t.data) + t.byte_offset, owner);
  }
  case DLM_KIND_INT:
    return py::int_(r.toInt());
  case DLM_KIND_FLOAT:
    return py::float_(r.toFloat());
  case DLM_KIND_BOOL:
    return py::bool_(r.toBool());
  case DLM_KIND_TUPLE: {
    py::tuple out(size_t(r.size()));
    for (int32_t i = 0; i < r.size(); ++i)
      out[size_t(i)] = toPython(r[i]);
    return out;
  }
  default:
    return py::none();
  }
}

/// A def of a module, or grad/value_and_grad of one.
class PyFunction {
public:
  PyFunction(std::shared_ptr<dlm::Module> module, std::string def, std::string repr,
             dlm::Function f)
      : repr(std::move(repr)), module(std::move(module)), def(std::move(def)), f(std::move(f)) {}

  py::object call(const py::args &args) const {
    Arguments held;
    std::vector<dlm::Arg> converted;
    for (size_t i = 0; i < args.size(); ++i)
      converted.push_back(held.convert(args[i], i, 0));
    std::unique_ptr<dlm::Result> result;
    held.called = true;
    try {
      py::gil_scoped_release release;
      result = std::make_unique<dlm::Result>(f.call(std::move(converted)));
      std::fflush(stdout); // what the def printed, before Python prints more
    } catch (const dlm::Error &e) {
      raise(e);
    }
    try {
      return toPython(*result);
    } catch (const dlm::Error &e) {
      raise(e);
    }
  }

  /// grad (withValue false) or value_and_grad of this def.
  PyFunction derivative(const py::object &argnums, bool withValue) const {
    if (!plain)
      throw py::type_error(repr + " is already a derivative: dlm.grad takes a def of a module");
    std::vector<int64_t> nums;
    bool tuple = false;
    if (py::isinstance<py::int_>(argnums)) {
      nums.push_back(argnums.cast<int64_t>());
    } else if (!argnums.is_none()) {
      tuple = true;
      for (py::handle a : argnums)
        nums.push_back(a.cast<int64_t>());
    }
    int32_t flags = (withValue ? DLM_GRAD_WITH_VALUE : 0) | (tuple ? DLM_GRAD_ARGNUMS_TUPLE : 0);
    dlm_function *g = nullptr;
    dlm_status *status =
        dlm_module_grad(module->get(), def.c_str(), nums.empty() ? nullptr : nums.data(),
                        int32_t(nums.size()), flags, &g);
    try {
      dlm::check(status);
    } catch (const dlm::Error &e) {
      raise(e);
    }
    std::string name = std::string(withValue ? "value_and_grad(" : "grad(") + def;
    if (!argnums.is_none())
      name += ", argnums=" + std::string(py::repr(argnums));
    PyFunction out(module, def, "<dlm function " + name + ")>", dlm::Function(g));
    out.plain = false;
    return out;
  }

  std::string repr;

private:
  std::shared_ptr<dlm::Module> module;
  std::string def;
  dlm::Function f;
  bool plain = true; ///< a def, not a derivative
};

dlm_options optionsFrom(const std::string &engine, int optLevel, bool cache, int threads) {
  dlm_options options = DLM_OPTIONS_INIT;
  if (engine == "jit")
    options.engine = DLM_ENGINE_JIT;
  else if (engine == "graph")
    options.engine = DLM_ENGINE_GRAPH;
  else
    throw py::value_error("engine must be 'jit' or 'graph', not '" + engine + "'");
  options.opt_level = optLevel;
  options.object_cache = cache;
  options.num_threads = threads;
  return options;
}

/// A loaded program: its defs as attributes (m.predict), each a PyFunction made once.
class PyModule {
public:
  explicit PyModule(dlm::Module m) : module(std::make_shared<dlm::Module>(std::move(m))) {
    for (const dlm::Def &d : module->defs())
      defs.push_back(d);
  }

  py::object function(const std::string &name) {
    for (auto &[def, f] : made)
      if (def == name)
        return f;
    bool known = false;
    for (const dlm::Def &d : defs)
      known |= d.name == name;
    if (!known)
      throw py::attribute_error("the module has no def named '" + name + "'");
    dlm_function *f = nullptr;
    try {
      dlm::check(dlm_module_function(module->get(), name.c_str(), &f));
    } catch (const dlm::Error &e) {
      raise(e);
    }
    py::object out =
        py::cast(PyFunction(module, name, "<dlm function " + name + ">", dlm::Function(f)));
    made.emplace_back(name, out);
    return out;
  }

  std::vector<dlm::Def> defs;

private:
  std::shared_ptr<dlm::Module> module;
  std::vector<std::pair<std::string, py::object>> made;
};

PyModule loadFile(const std::string &path, const std::string &engine, int optLevel, bool cache,
                  int threads) {
  dlm_options options = optionsFrom(engine, optLevel, cache, threads);
  try {
    std::unique_ptr<dlm::Module> m;
    {
      py::gil_scoped_release release;
      m = std::make_unique<dlm::Module>(dlm::Module::load(path, &options));
    }
    return PyModule(std::move(*m));
  } catch (const dlm::Error &e) {
    raise(e);
  }
}

PyModule loadSource(const std::string &text, const std::string &name, int firstLine,
                    const std::string &engine, int optLevel, bool cache, int threads) {
  dlm_options options = optionsFrom(engine, optLevel, cache, threads);
  try {
    std::unique_ptr<dlm::Module> m;
    {
      py::gil_scoped_release release;
      m = std::make_unique<dlm::Module>(dlm::Module::fromSource(text, name, firstLine, &options));
    }
    return PyModule(std::move(*m));
  } catch (const dlm::Error &e) {
    raise(e);
  }
}

/// The value of a constant load_parts was given: a Python bool, int or float.
dlm_constant constantOf(const std::string &name, const py::handle &value) {
  dlm_constant c{};
  if (py::isinstance<py::bool_>(value)) {
    c.kind = DLM_KIND_BOOL;
    c.i = value.cast<bool>();
  } else if (py::isinstance<py::int_>(value)) {
    c.kind = DLM_KIND_INT;
    c.i = value.cast<int64_t>();
  } else if (py::isinstance<py::float_>(value)) {
    c.kind = DLM_KIND_FLOAT;
    c.f = value.cast<double>();
  } else {
    throw py::type_error("constant '" + name + "' is not a bool, int or float");
  }
  return c;
}

/// A program given as parts (name, text, first line, indent) of one main file, with constants
/// its code reads (dlm_options.constants): what @dlm.jit compiles.
PyModule loadParts(const std::vector<std::tuple<std::string, std::string, int, int>> &parts,
                   const std::map<std::string, py::object> &constants, const std::string &engine,
                   int optLevel, bool cache, int threads) {
  dlm_options options = optionsFrom(engine, optLevel, cache, threads);
  std::vector<dlm_source> sources;
  for (const auto &[name, text, firstLine, indent] : parts)
    sources.push_back({name.c_str(), text.c_str(), firstLine, indent});
  std::vector<dlm_constant> values;
  for (const auto &[name, value] : constants) {
    values.push_back(constantOf(name, value));
    values.back().name = name.c_str();
  }
  options.num_constants = int32_t(values.size());
  options.constants = values.data();
  try {
    std::unique_ptr<dlm::Module> m;
    {
      py::gil_scoped_release release;
      m = std::make_unique<dlm::Module>(dlm::Module::fromSources(sources, &options));
    }
    return PyModule(std::move(*m));
  } catch (const dlm::Error &e) {
    raise(e);
  }
}

} // namespace

PYBIND11_MODULE(_dlm, m) {
  m.doc() = "Calling dlm defs from Python (docs/embedding.md)";
  static Exceptions classes;
  classes.base = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "dlm.Error", "A failed dlm call; str() is the diagnostic text", PyExc_Exception, nullptr));
  auto sub = [&](const char *name, PyObject *also) {
    py::tuple bases =
        also ? py::make_tuple(classes.base, py::handle(also)) : py::make_tuple(classes.base);
    return py::reinterpret_steal<py::object>(
        PyErr_NewException(("dlm." + std::string(name)).c_str(), bases.ptr(), nullptr));
  };
  classes.invalid = sub("InvalidArgumentError", PyExc_ValueError);
  classes.compile = sub("CompileError", nullptr);
  classes.runtime = sub("ExecutionError", nullptr);
  classes.io = sub("IOError", PyExc_OSError);
  classes.internal = sub("InternalError", nullptr);
  exceptions = &classes;
  m.attr("Error") = classes.base;
  m.attr("InvalidArgumentError") = classes.invalid;
  m.attr("CompileError") = classes.compile;
  m.attr("ExecutionError") = classes.runtime;
  m.attr("IOError") = classes.io;
  m.attr("InternalError") = classes.internal;

  py::class_<dlm::Def>(m, "Def")
      .def_readonly("name", &dlm::Def::name)
      .def_readonly("signature", &dlm::Def::signature)
      .def_readonly("params", &dlm::Def::params)
      .def_readonly("annotations", &dlm::Def::annotations)
      .def_readonly("required", &dlm::Def::required)
      .def("__repr__", [](const dlm::Def &d) { return "<dlm def " + d.signature + ">"; });

  py::class_<PyFunction>(m, "Function")
      .def("__call__", &PyFunction::call)
      .def("__repr__", [](const PyFunction &f) { return f.repr; });

  py::class_<PyModule>(m, "Module")
      .def_readonly("defs", &PyModule::defs)
      .def("__getattr__", &PyModule::function)
      .def("__getitem__", &PyModule::function)
      .def("__dir__", [](const PyModule &pm) {
        std::vector<std::string> names;
        for (const dlm::Def &d : pm.defs)
          names.push_back(d.name);
        return names;
      });

  m.def("load", &loadFile, py::arg("path"), py::arg("engine") = "jit", py::arg("opt_level") = 2,
        py::arg("cache") = true, py::arg("num_threads") = 0,
        "Loads and checks the program in `path` (its top-level statements never run)");
  m.def("load_parts", &loadParts, py::arg("parts"), py::arg("constants"), py::arg("engine") = "jit",
        py::arg("opt_level") = 2, py::arg("cache") = true, py::arg("num_threads") = 0,
        "Loads a program given as parts (name, text, first_line, indent) with constants "
        "(name: bool, int or float): what @dlm.jit compiles");
  m.def("loads", &loadSource, py::arg("text"), py::arg("name") = "<source>",
        py::arg("first_line") = 1, py::arg("engine") = "jit", py::arg("opt_level") = 2,
        py::arg("cache") = true, py::arg("num_threads") = 0,
        "Loads and checks a program given as text");
  m.def(
      "grad",
      [](const PyFunction &f, const py::object &argnums) { return f.derivative(argnums, false); },
      py::arg("f"), py::arg("argnums") = py::none(),
      "grad(f, argnums): the gradient of a def's scalar result, as dlm's grad");
  m.def(
      "value_and_grad",
      [](const PyFunction &f, const py::object &argnums) { return f.derivative(argnums, true); },
      py::arg("f"), py::arg("argnums") = py::none(),
      "value_and_grad(f, argnums): (the def's result, its gradient)");
}
