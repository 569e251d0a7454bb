/*===- include/dlm/dlm.h - Calling dlm programs from C ---------------------===*
 *
 * The embedding API of dlm (docs/embedding.md): load a .dlm program, list its defs, and call a
 * def — or its gradient — on host tensors passed as DLPack, from any number of threads. Plain
 * C with a stable ABI: opaque handles, fixed-width integers, no exceptions cross it. libdlm
 * ships as a shared (libdlm.so) and a static (libdlm.a) library; include/dlm/dlm.hpp is a thin
 * C++ layer over this header.
 *
 *   dlm_module *m;
 *   dlm_function *predict;
 *   dlm_result *y;
 *   dlm_status *s = dlm_module_load("model.dlm", NULL, &m);
 *   if (!s) s = dlm_module_function(m, "predict", &predict);
 *   dlm_arg args[3] = {dlm_arg_tensor(&w), dlm_arg_tensor(&b), dlm_arg_tensor(&x)};
 *   if (!s) s = dlm_call(predict, args, 3, &y);
 *   if (s) { fputs(dlm_status_message(s), stderr); dlm_status_free(s); }
 *
 * Errors: every function that can fail returns a dlm_status*, NULL on success. A status is owned
 * by the caller (dlm_status_free); its message is the diagnostic text the command line prints
 * for the same problem (`model.dlm:3:15: error: ...`, the source line, a caret, notes).
 * A bad call — a null, freed or mistyped handle, a missing def, the wrong number of arguments,
 * a tensor whose dtype, rank or shape the def cannot take, a tensor not on the CPU — is a
 * status (DLM_ERROR_INVALID_ARGUMENT or DLM_ERROR_COMPILE), never a crash.
 *
 * Handles: dlm_module, dlm_function and dlm_result are opaque handles, checked on every use: a
 * handle used after it was freed is an error, not undefined behaviour. A dlm_function keeps
 * its module alive; freeing the module handle first is allowed.
 *
 * Threads: every function may be called from any thread. One dlm_function may be called by
 * several threads at once; the first call with new argument types compiles (once, while other
 * threads wait for it), later ones run the compiled code without a lock.
 *
 *===----------------------------------------------------------------------===*/
#ifndef DLM_DLM_H
#define DLM_DLM_H

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header's ABI; dlm_api_version() returns the library's. */
#define DLM_API_VERSION 2
int32_t dlm_api_version(void);

/* --- status --------------------------------------------------------------------------- */
typedef struct dlm_status dlm_status;

typedef enum {
  DLM_OK = 0,
  DLM_ERROR_INVALID_ARGUMENT = 1, /* a bad call: handles, arity, tensors the API cannot take */
  DLM_ERROR_COMPILE = 2,          /* the program, or the def at these argument types, does not
                                     compile (the compiler's diagnostics) */
  DLM_ERROR_RUNTIME = 3,          /* the program stopped with a run-time error */
  DLM_ERROR_IO = 4,               /* a file cannot be read or written */
  DLM_ERROR_INTERNAL = 5          /* a bug in dlm */
} dlm_error_code;

/* The status's code; DLM_OK for NULL. */
int32_t dlm_status_code(const dlm_status *status);
/* Its message: the diagnostic text, ending in a newline; "" for NULL. Valid until freed. */
const char *dlm_status_message(const dlm_status *status);
void dlm_status_free(dlm_status *status);

/* --- modules -------------------------------------------------------------------------- */
typedef struct dlm_module dlm_module;

typedef enum { DLM_ENGINE_JIT = 0, DLM_ENGINE_GRAPH = 1 } dlm_engine;

/* A name the program's own code (not the modules it imports) reads as a constant, like a C
 * compiler's -DNAME=VALUE: wherever no variable of the function has that name, it is the
 * literal (so `zeros(N, 4)` has a static shape). The Python module's @dlm.jit passes the
 * numbers its Python module defines so. */
typedef struct dlm_constant {
  const char *name;
  int32_t kind; /* DLM_KIND_INT, DLM_KIND_FLOAT or DLM_KIND_BOOL (dlm_kind, below) */
  int64_t i;    /* an int's or a bool's value */
  double f;     /* a float's value */
} dlm_constant;

/* How a module compiles and runs its functions. Start from DLM_OPTIONS_INIT. */
typedef struct dlm_options {
  uint32_t size;         /* sizeof(dlm_options), for later versions of this struct */
  int32_t engine;        /* DLM_ENGINE_JIT (the default) or DLM_ENGINE_GRAPH (the executor) */
  int32_t opt_level;     /* 0 .. 3, like -O; default 2 */
  int32_t object_cache;  /* 1: keep compiled code in the JIT's on-disk cache (DLM_CACHE_DIR) */
  int32_t num_threads;   /* the graph executor's threads; 0: one per core (DLM_NUM_THREADS) */
  int32_t num_constants; /* constants the program reads (copied when it loads) */
  const dlm_constant *constants;
} dlm_options;
#define DLM_OPTIONS_INIT                                                                           \
  { sizeof(dlm_options), DLM_ENGINE_JIT, 2, 1, 0, 0, NULL }

/* Reads, parses and checks the program in `path` with everything it imports, as
 * `dlmc FILE.dlm` does; its top-level statements are checked, never run. `options` may be
 * NULL. */
dlm_status *dlm_module_load(const char *path, const dlm_options *options, dlm_module **module);

/* One source text of a program held in memory: positions in it are reported under `name`
 * (imports are relative to it), its first line numbered `first_line` (1 if 0). Its top-level
 * statements start at column `indent` + 1 (0: a file's first column): a def cut out of an
 * indented block of another file is given as it stands there, so its columns are that file's.
 * (`indent` is new in API version 2, in what was padding.) */
typedef struct dlm_source {
  const char *name;
  const char *text;
  int32_t first_line;
  int32_t indent;
} dlm_source;

/* The same for a program given as texts: `count` parts of one main file, in order. */
dlm_status *dlm_module_load_sources(const dlm_source *sources, int32_t count,
                                    const dlm_options *options, dlm_module **module);
dlm_status *dlm_module_free(dlm_module *module);

/* The defs of the main file, in source order. Strings stay valid while the module lives. */
dlm_status *dlm_module_num_defs(const dlm_module *module, int32_t *count);
/* Def `index`: its name and its signature as written ("predict(w, b, x: Tensor[B, 784])"). */
dlm_status *dlm_module_def(const dlm_module *module, int32_t index, const char **name,
                           const char **signature);
/* Its parameters: how many, and how many have no default value. */
dlm_status *dlm_module_def_params(const dlm_module *module, int32_t index, int32_t *count,
                                  int32_t *required);
/* Parameter `param` of def `index`: its name and annotation as written ("" when none). */
dlm_status *dlm_module_def_param(const dlm_module *module, int32_t index, int32_t param,
                                 const char **name, const char **annotation);

/* --- functions ------------------------------------------------------------------------ */
typedef struct dlm_function dlm_function;

/* A callable for def `def` of the module. */
dlm_status *dlm_module_function(dlm_module *module, const char *def, dlm_function **function);

/* Flags of dlm_module_grad. */
#define DLM_GRAD_WITH_VALUE 1    /* value_and_grad: the result is (value, gradients) */
#define DLM_GRAD_ARGNUMS_TUPLE 2 /* one argnum still gives a tuple of gradients */
/* A callable for grad(def, argnums) (value_and_grad with DLM_GRAD_WITH_VALUE): the gradient of
 * the def's scalar result with respect to the arguments `argnums` (NULL or 0 of them: the
 * first). Several argnums give a tuple of gradients, each of its argument's type. */
dlm_status *dlm_module_grad(dlm_module *module, const char *def, const int64_t *argnums,
                            int32_t num_argnums, int32_t flags, dlm_function **function);
dlm_status *dlm_function_free(dlm_function *function);

/* --- arguments ------------------------------------------------------------------------ */
typedef enum {
  DLM_KIND_TENSOR = 0,  /* a tensor (dtypes float32, float64, int32, int64, bool) */
  DLM_KIND_INT = 1,     /* the language's int (64-bit) */
  DLM_KIND_FLOAT = 2,   /* float (64-bit) */
  DLM_KIND_BOOL = 3,    /* bool */
  DLM_KIND_TUPLE = 4,   /* a tuple of values, nested freely */
  DLM_KIND_MANAGED = 5, /* arguments only: a tensor handed over with its DLManagedTensor */
  DLM_KIND_NONE = 6,    /* results only: a def that returns nothing */
  DLM_KIND_STR = 7      /* arguments only, not inside a tuple: a str compiled into the code
                           (each distinct string compiles its own, as a constant does) */
} dlm_kind;

/* The bool dtype of DLPack 0.8 (kDLBool), which this DLPack (0.6) lacks: code 6, 8 bits. */
#define DLM_DLPACK_BOOL 6

/* One argument of a call: a tensor, a number or a tuple of arguments.
 *   - DLM_KIND_TENSOR: `tensor` is borrowed for the call (zero-copy when its strides are
 *     non-negative and its data aligned to its element; otherwise it is copied). Results that
 *     would share its memory are copied, so nothing returned points into it.
 *   - DLM_KIND_MANAGED: `managed` is handed over whether the call succeeds or not: dlm calls its
 *     deleter once it no longer uses the memory, which results may go on sharing.
 *   - DLM_KIND_INT / _BOOL: `i`; DLM_KIND_FLOAT: `f`; DLM_KIND_STR: `str` (a path, say);
 *     DLM_KIND_TUPLE: `count` elements at `elements`. */
typedef struct dlm_arg {
  int32_t kind;
  int32_t count;
  union {
    const DLTensor *tensor;
    DLManagedTensor *managed;
    int64_t i;
    double f;
    const char *str;
    const struct dlm_arg *elements;
  } value;
} dlm_arg;

static inline dlm_arg dlm_arg_tensor(const DLTensor *t) {
  dlm_arg a;
  a.kind = DLM_KIND_TENSOR;
  a.count = 0;
  a.value.tensor = t;
  return a;
}
static inline dlm_arg dlm_arg_managed(DLManagedTensor *t) {
  dlm_arg a;
  a.kind = DLM_KIND_MANAGED;
  a.count = 0;
  a.value.managed = t;
  return a;
}
static inline dlm_arg dlm_arg_int(int64_t v) {
  dlm_arg a;
  a.kind = DLM_KIND_INT;
  a.count = 0;
  a.value.i = v;
  return a;
}
static inline dlm_arg dlm_arg_float(double v) {
  dlm_arg a;
  a.kind = DLM_KIND_FLOAT;
  a.count = 0;
  a.value.f = v;
  return a;
}
static inline dlm_arg dlm_arg_bool(int v) {
  dlm_arg a;
  a.kind = DLM_KIND_BOOL;
  a.count = 0;
  a.value.i = v != 0;
  return a;
}
static inline dlm_arg dlm_arg_str(const char *v) {
  dlm_arg a;
  a.kind = DLM_KIND_STR;
  a.count = 0;
  a.value.str = v;
  return a;
}
static inline dlm_arg dlm_arg_tuple(const dlm_arg *elements, int32_t count) {
  dlm_arg a;
  a.kind = DLM_KIND_TUPLE;
  a.count = count;
  a.value.elements = elements;
  return a;
}

/* --- calls and results ---------------------------------------------------------------- */
typedef struct dlm_result dlm_result;

/* Calls `function` on `args`. The first call with new argument types (dtype, rank, static
 * dims; a dim the def's annotation names, `x: Tensor[B, 784]`, stays symbolic, so another
 * size reuses the code) compiles the def for them; errors of that compile are
 * DLM_ERROR_COMPILE and are remembered for those types. `result` receives the result, owned by
 * the caller (dlm_result_free). */
dlm_status *dlm_call(dlm_function *function, const dlm_arg *args, int32_t num_args,
                     dlm_result **result);

/* The kind of a result (DLM_KIND_TENSOR, _INT, _FLOAT, _BOOL, _TUPLE or _NONE) and, for a
 * tuple, its number of elements. */
dlm_status *dlm_result_kind(const dlm_result *result, int32_t *kind, int32_t *count);
/* Element `index` of a tuple result, as a new handle (free it too; it shares the data). */
dlm_status *dlm_result_element(const dlm_result *result, int32_t index, dlm_result **element);
/* A tensor result as a new DLManagedTensor owned by the caller (call its deleter); it shares
 * the result's memory and stays valid after the result is freed. */
dlm_status *dlm_result_tensor(const dlm_result *result, DLManagedTensor **tensor);
dlm_status *dlm_result_int(const dlm_result *result, int64_t *value);
dlm_status *dlm_result_float(const dlm_result *result, double *value);
dlm_status *dlm_result_bool(const dlm_result *result, int32_t *value);
/* The result's type as dlm prints it: "(f32[], (f32[784, 10], f32[10]))". Valid until freed. */
dlm_status *dlm_result_type(const dlm_result *result, const char **type);
dlm_status *dlm_result_free(dlm_result *result);

#ifdef __cplusplus
}
#endif

#endif /* DLM_DLM_H */
