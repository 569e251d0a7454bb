/*===- runtime/CApi.h - The runtime's stable C ABI -------------------------===*
 *
 * What JIT-generated code and AOT executables call. Plain C: opaque handles, fixed-width
 * integers, no exceptions cross it. Every function that can fail returns an int status
 * (0 = ok, 1 = error) or a null handle, and leaves a message for dlm_last_error().
 *
 *   dlm_tensor *a = dlm_tensor_from_data(DLM_F32, 2, shape, data);
 *   int32_t add = dlm_kernel_id("add");
 *   dlm_tensor *ins[2] = {a, a}, *out;
 *   int32_t nout;
 *   if (dlm_kernel_call(add, ins, 2, NULL, &out, 1, &nout)) fputs(dlm_last_error(), stderr);
 *   dlm_tensor_release(out); dlm_tensor_release(a);
 *
 * Ownership: functions returning a dlm_tensor* hand the caller one reference; outputs of a
 * kernel call are new references; inputs are borrowed. Handles are thread-safe to retain and
 * release from any thread.
 *
 *===----------------------------------------------------------------------===*/
#ifndef DLM_RUNTIME_CAPI_H
#define DLM_RUNTIME_CAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types; the values equal dlm::DType's. */
enum { DLM_F32 = 0, DLM_F64 = 1, DLM_I32 = 2, DLM_I64 = 3, DLM_BOOL = 4 };

typedef struct dlm_tensor dlm_tensor;
typedef struct dlm_attrs dlm_attrs;

/* One kernel operand: a tensor (str == NULL) or a string (tensor == NULL). */
typedef struct {
  dlm_tensor *tensor;
  const char *str;
} dlm_value;

/* --- errors ---------------------------------------------------------------------------- */
/* The message of the last failed call on this thread ("" if none). Valid until the next call
 * on this thread that fails. */
const char *dlm_last_error(void);
void dlm_clear_error(void);

/* --- tensors --------------------------------------------------------------------------- */
dlm_tensor *dlm_tensor_empty(int32_t dtype, int32_t rank, const int64_t *shape);
dlm_tensor *dlm_tensor_zeros(int32_t dtype, int32_t rank, const int64_t *shape);
/* Copies numel * element-size bytes of row-major data. */
dlm_tensor *dlm_tensor_from_data(int32_t dtype, int32_t rank, const int64_t *shape,
                                 const void *data);
dlm_tensor *dlm_tensor_scalar_f64(double v);
dlm_tensor *dlm_tensor_scalar_i64(int64_t v);
dlm_tensor *dlm_tensor_scalar_bool(int32_t v);
void dlm_tensor_retain(dlm_tensor *t);
void dlm_tensor_release(dlm_tensor *t);

int32_t dlm_tensor_dtype(const dlm_tensor *t);
int32_t dlm_tensor_rank(const dlm_tensor *t);
const int64_t *dlm_tensor_shape(const dlm_tensor *t);
/* Strides in elements. */
const int64_t *dlm_tensor_strides(const dlm_tensor *t);
int64_t dlm_tensor_numel(const dlm_tensor *t);
/* Address of the first element (honours the view offset). */
void *dlm_tensor_data(const dlm_tensor *t);
int32_t dlm_tensor_is_contiguous(const dlm_tensor *t);
/* A contiguous tensor with the same values (a new reference; t itself if already contiguous). */
dlm_tensor *dlm_tensor_contiguous(dlm_tensor *t);
/* The single value of a one-element tensor, converted. */
int dlm_tensor_item_f64(const dlm_tensor *t, double *out);
int dlm_tensor_item_i64(const dlm_tensor *t, int64_t *out);

/* --- attributes ------------------------------------------------------------------------ */
dlm_attrs *dlm_attrs_new(void);
void dlm_attrs_free(dlm_attrs *a);
void dlm_attrs_set_int(dlm_attrs *a, const char *name, int64_t v);
void dlm_attrs_set_float(dlm_attrs *a, const char *name, double v);
void dlm_attrs_set_bool(dlm_attrs *a, const char *name, int32_t v);
void dlm_attrs_set_ints(dlm_attrs *a, const char *name, const int64_t *v, int64_t n);
void dlm_attrs_set_string(dlm_attrs *a, const char *name, const char *v);
void dlm_attrs_set_dtype(dlm_attrs *a, const char *name, int32_t dtype);
/* Stores a new reference to t (for const{value}). */
void dlm_attrs_set_tensor(dlm_attrs *a, const char *name, dlm_tensor *t);

/* --- kernels --------------------------------------------------------------------------- */
/* The id of op `name` (docs/ops.md), or -1 (with an error) if no device has a kernel for it. */
int32_t dlm_kernel_id(const char *name);
/* Runs kernel `id` on the device of its first tensor operand. `attrs` may be NULL. Writes up
 * to max_outputs new references to outputs and the count produced to *n_outputs; more outputs
 * than max_outputs is an error (nothing is leaked). */
int dlm_kernel_call(int32_t id, dlm_tensor *const *inputs, int32_t n_inputs, const dlm_attrs *attrs,
                    dlm_tensor **outputs, int32_t max_outputs, int32_t *n_outputs);
/* Same, with operands that may be strings (print, save). */
int dlm_kernel_call_values(int32_t id, const dlm_value *inputs, int32_t n_inputs,
                           const dlm_attrs *attrs, dlm_tensor **outputs, int32_t max_outputs,
                           int32_t *n_outputs);

/* --- generated code (compiler/codegen, docs/codegen.md) -------------------------------- */
/* 0-d tensors of the remaining dtypes, for boxing register scalars. */
dlm_tensor *dlm_tensor_scalar_f32(float v);
dlm_tensor *dlm_tensor_scalar_i32(int32_t v);
/* Converts the single element of t to `dtype` and writes it to *out (dtype-sized; a bool is
 * one byte, 0 or 1). Fails unless t has exactly one element. */
int dlm_tensor_read_scalar(const dlm_tensor *t, int32_t dtype, void *out);
void dlm_attrs_set_floats(dlm_attrs *a, const char *name, const double *v, int64_t n);
void dlm_attrs_set_dtypes(dlm_attrs *a, const char *name, const int32_t *v, int64_t n);
/* n shapes; shape i has ranks[i] dims, all shapes' dims concatenated in `dims`. */
void dlm_attrs_set_shapes(dlm_attrs *a, const char *name, const int64_t *dims, const int64_t *ranks,
                          int64_t n);
/* For generated elementwise loops: the address of t's first element when t is laid out
 * densely (row-major without gaps), else NULL. */
void *dlm_tensor_dense_data(const dlm_tensor *t);
/* The output of an elementwise op with element type `dtype` and the shape of `like`: `donor`
 * itself when the caller holds the only reference to it and to its memory and it is dense with
 * that dtype and shape (the caller's reference moves to the result: in-place update), else a
 * new dense tensor. `donor` may be NULL. Returns NULL on allocation failure. */
dlm_tensor *dlm_tensor_output_like(dlm_tensor *donor, int32_t dtype, const dlm_tensor *like);
/* A view of t (same buffer and strides) of `shape`, starting at multi-index `start` (rank
 * entries each): a slice with unit steps whose bounds codegen resolved. NULL on failure. */
dlm_tensor *dlm_tensor_slice(const dlm_tensor *t, int32_t rank, const int64_t *start,
                             const int64_t *shape);
/* slice_grad(g) of such a slice: zeros of `shape` (rank dims) with g copied into the window
 * starting at `start`. `attrs` are the node's, for the kernel when g is not on the CPU. */
dlm_tensor *dlm_tensor_slice_grad(const dlm_tensor *g, const dlm_attrs *attrs, int32_t rank,
                                  const int64_t *shape, const int64_t *start);
/* stack_top(s) and stack_pop(s) (docs/ops.md) without the generic kernel dispatch: what a
 * loop's gradient runs every iteration. A new reference, or NULL with the kernel's error. */
dlm_tensor *dlm_stack_top(const dlm_tensor *s);
dlm_tensor *dlm_stack_pop(const dlm_tensor *s);
/* stack_push(s, x) without the generic dispatch: what a loop's forward pass runs for every
 * value its gradient saves. A new reference, or NULL with the kernel's error. */
dlm_tensor *dlm_stack_push(const dlm_tensor *s, const dlm_tensor *x);
/* transpose{perm}(t) for a permutation codegen checked against t's static rank: the view with
 * dims and strides permuted (rank entries of perm). NULL with an error if t's rank differs. */
dlm_tensor *dlm_tensor_transpose(const dlm_tensor *t, int32_t rank, const int64_t *perm);
/* index{axis}(t, i) with a 0-d integer index: the view of entry i (negative counts from the
 * end) along `axis` (already normalised), that axis removed. NULL with the kernel's error
 * ("index I is out of range for axis A with size N") when i is out of range. */
dlm_tensor *dlm_tensor_select(const dlm_tensor *t, int32_t axis, int64_t i);
/* reshape{shape}(t) with a shape attribute free of run-time dims (one entry may be -1): what
 * the kernel computes, a view of a contiguous t, else a copy (by the device's kernel for a
 * tensor off the CPU). */
dlm_tensor *dlm_tensor_reshape(const dlm_tensor *t, int32_t rank, const int64_t *shape);
/* sum_to{shape}(x) (rank entries of shape) for a float x with as many elements as `shape`: only
 * axes of size 1 are summed away (a bias gradient [1, n] -> [n]). The kernel's values, each
 * element plus 0.0 (a sum starting from zero turns -0.0 into +0.0), in a new tensor, without
 * the reduction's planning; a tensor off the CPU takes its device's kernel with `attrs`. */
dlm_tensor *dlm_tensor_sum_to(const dlm_tensor *x, int32_t rank, const int64_t *shape,
                              const dlm_attrs *attrs);
/* The generic fast path for an op with tensor operands and one tensor result: kernel `id`
 * (dlm_kernel_id) run on the device of its operands, as dlm_kernel_call does, but with no
 * string operands, output array or count. Operands are borrowed (no references taken for the
 * call); the result is a new reference, or NULL with the kernel's error. */
dlm_tensor *dlm_kernel_run(int32_t id, dlm_tensor *const *inputs, int32_t n_inputs,
                           const dlm_attrs *attrs);
/* matmul_bias(inputs[0], inputs[1], inputs[2]) {attrs} (kernel `id`) for a caller that does
 * not read the addend inputs[2] again: when it holds the only reference to it and to its
 * memory, the small product's sum is written over the addend (kernels/cpu
 * matmulBiasAccumulate, the kernel's bits) and inputs[2] itself is returned (the caller's
 * reference moves to the result); otherwise as dlm_kernel_run. */
dlm_tensor *dlm_matmul_bias_accumulate(int32_t id, dlm_tensor *const *inputs,
                                       const dlm_attrs *attrs);
/* Sets the message dlm_last_error() returns (an error detected by generated code). */
void dlm_set_error(const char *message);
/* A note that follows a run-time error: a position in the .dlm program (file, line, column,
 * the text of that source line or NULL) and what it says ("inside 'nn.linear'"). */
typedef struct dlm_error_note {
  const char *file;
  int32_t line;
  int32_t col;
  const char *source_line;
  const char *message;
} dlm_error_note;
/* A failure site of generated code: where the error is reported (file, line, column, the text
 * of that source line or NULL: the user's line), what the message starts with (a gradient
 * node's "in the gradient of 'OP' at FILE:LINE:COL: ", else NULL) and the notes that follow
 * (the inlined calls it happened in; docs/runtime.md "Where a run-time error points"). */
typedef struct dlm_error_site {
  const char *file;
  int32_t line;
  int32_t col;
  const char *source_line;
  const char *prefix;
  const dlm_error_note *notes;
  int32_t n_notes;
} dlm_error_site;
/* Records where in the .dlm program the last error happened (copied: the site may go away).
 * Generated code calls it before returning its error status. */
void dlm_set_error_site(const dlm_error_site *site);
/* The location recorded by dlm_set_error_site (*file = NULL, *line = 0 if none). */
void dlm_error_location(const char **file, int32_t *line, int32_t *col);
/* The notes recorded by dlm_set_error_site (*notes valid until the next error); their count. */
int32_t dlm_error_notes(const dlm_error_note **notes);
/* Prints the last error to stderr the way the compiler's diagnostics do:
 * "file:line:col: error: message", the source line and a caret, then each note the same way
 * ("file:line:col: note: message"). AOT executables call it. */
void dlm_print_last_error(void);
/* What dlm_print_last_error prints, as text (valid until the next call on this thread). */
const char *dlm_last_error_report(void);

/* --- process-wide ---------------------------------------------------------------------- */
/* Re-seeds the random number generator (same as the `seed` op). */
void dlm_seed(uint64_t seed);
/* 1 when this process runs the FMA copies of code built for a generic x86-64 (an AOT
 * executable's generated functions, the portable runtime's contracted kernels): the CPU has FMA
 * and DLM_AOT_PORTABLE is not set; else 0 (runtime/CpuDispatch.h). Decided once per process. */
int32_t dlm_use_fma(void);

#ifdef __cplusplus
}
#endif

#endif /* DLM_RUNTIME_CAPI_H */
