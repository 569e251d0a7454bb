/*===- tests/embed/c_api.c - The C API, from C ------------------------------===*
 *
 * Loads tests/embed/Inputs/mlp.dlm through include/dlm/dlm.h (linked with libdlm.so) and calls
 * its defs on DLPack tensors: a prediction at two batch sizes, grad and value_and_grad of the
 * loss, a training step, scalars in and out, a str argument, a borrowed input whose view comes
 * back, a strided input, a handed-over (managed) input. Every numeric result is printed as
 * `NAME dtype [shape] values...` for Inputs/check_mlp.py to compare with PyTorch; every bad
 * call prints `error CODE: first line of the message` for FileCheck. Usage: c_api MODEL jit|graph
 *
 *===----------------------------------------------------------------------===*/
#include "dlm/dlm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { IN = 4, HIDDEN = 8, OUT = 3 };

static void die(dlm_status *s, const char *what) {
  if (!s)
    return;
  fprintf(stderr, "%s failed:\n%s", what, dlm_status_message(s));
  exit(1);
}

/* Prints a bad call's status: its code and the message's first line. */
static void expectError(dlm_status *s, const char *what) {
  if (!s) {
    printf("error %s: none\n", what);
    return;
  }
  const char *m = dlm_status_message(s);
  const char *end = strchr(m, '\n');
  printf("error %s: code %d: %.*s\n", what, dlm_status_code(s),
         (int)(end ? end - m : (long)strlen(m)), m);
  dlm_status_free(s);
}

/* Deterministic data: element i of a tensor with salt s (Inputs/check_mlp.py has the same). */
static float value(int i, double salt) { return (float)sin(i * 0.37 + salt); }

typedef struct {
  DLTensor dl;
  int64_t shape[2];
  float data[64];
} Tensor;

static void fill(Tensor *t, int rank, int64_t d0, int64_t d1, double salt) {
  memset(t, 0, sizeof *t);
  t->shape[0] = d0;
  t->shape[1] = d1;
  int64_t n = rank == 1 ? d0 : d0 * d1;
  for (int64_t i = 0; i < n; ++i)
    t->data[i] = value((int)i, salt) * 0.5f;
  t->dl.data = t->data;
  t->dl.device.device_type = kDLCPU;
  t->dl.ndim = rank;
  t->dl.dtype.code = kDLFloat;
  t->dl.dtype.bits = 32;
  t->dl.dtype.lanes = 1;
  t->dl.shape = t->shape;
}

static void printTensor(const char *name, const dlm_result *r) {
  DLManagedTensor *m;
  die(dlm_result_tensor(r, &m), "dlm_result_tensor");
  const DLTensor *t = &m->dl_tensor;
  int64_t n = 1;
  printf("%s %s%d [", name, t->dtype.code == kDLFloat ? "f" : "i", t->dtype.bits);
  for (int d = 0; d < t->ndim; ++d) {
    printf("%s%lld", d ? ", " : "", (long long)t->shape[d]);
    n *= t->shape[d];
  }
  printf("]");
  /* Walk with the strides (a result may be a view). */
  int64_t compact[8];
  for (int d = t->ndim - 1, acc = 1; d >= 0; acc *= (int)t->shape[d], --d)
    compact[d] = acc;
  for (int64_t k = 0; k < n; ++k) {
    int64_t offset = 0, rest = k;
    for (int d = t->ndim - 1; d >= 0; --d) {
      offset += (rest % t->shape[d]) * (t->strides ? t->strides[d] : compact[d]);
      rest /= t->shape[d];
    }
    const char *base = (const char *)t->data + t->byte_offset;
    if (t->dtype.code == kDLFloat && t->dtype.bits == 32)
      printf(" %.9g", ((const float *)base)[offset]);
    else if (t->dtype.code == kDLFloat)
      printf(" %.17g", ((const double *)base)[offset]);
    else if (t->dtype.bits == 64)
      printf(" %lld", (long long)((const int64_t *)base)[offset]);
    else
      printf(" %d", (int)((const int32_t *)base)[offset]);
  }
  printf("\n");
  m->deleter(m);
}

/* Prints every tensor leaf of a result as NAME.i.j... */
static void printResult(const char *name, const dlm_result *r) {
  int32_t kind, count;
  die(dlm_result_kind(r, &kind, &count), "dlm_result_kind");
  if (kind == DLM_KIND_TENSOR) {
    printTensor(name, r);
  } else if (kind == DLM_KIND_TUPLE) {
    for (int32_t i = 0; i < count; ++i) {
      dlm_result *e;
      char child[128];
      die(dlm_result_element(r, i, &e), "dlm_result_element");
      snprintf(child, sizeof child, "%s.%d", name, i);
      printResult(child, e);
      die(dlm_result_free(e), "dlm_result_free");
    }
  } else if (kind == DLM_KIND_INT) {
    int64_t v;
    die(dlm_result_int(r, &v), "dlm_result_int");
    printf("%s int %lld\n", name, (long long)v);
  } else if (kind == DLM_KIND_FLOAT) {
    double v;
    die(dlm_result_float(r, &v), "dlm_result_float");
    printf("%s float %.17g\n", name, v);
  } else if (kind == DLM_KIND_BOOL) {
    int32_t v;
    die(dlm_result_bool(r, &v), "dlm_result_bool");
    printf("%s bool %d\n", name, v);
  } else {
    printf("%s none\n", name);
  }
}

static dlm_result *call(dlm_function *f, const dlm_arg *args, int n) {
  dlm_result *r = NULL;
  die(dlm_call(f, args, n, &r), "dlm_call");
  return r;
}

static int deleted = 0;
static void countingDeleter(DLManagedTensor *self) {
  ++deleted;
  (void)self;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: c_api MODEL jit|graph\n");
    return 2;
  }
  dlm_options options = DLM_OPTIONS_INIT;
  options.engine = strcmp(argv[2], "graph") == 0 ? DLM_ENGINE_GRAPH : DLM_ENGINE_JIT;
  dlm_module *m;
  die(dlm_module_load(argv[1], &options, &m), "dlm_module_load");

  int32_t defs;
  die(dlm_module_num_defs(m, &defs), "dlm_module_num_defs");
  for (int32_t i = 0; i < defs; ++i) {
    const char *name, *signature;
    die(dlm_module_def(m, i, &name, &signature), "dlm_module_def");
    printf("def %s: %s\n", name, signature);
  }

  Tensor w1, b1, w2, b2, x3, x5, y3;
  fill(&w1, 2, IN, HIDDEN, 1.0);
  fill(&b1, 1, HIDDEN, 0, 2.0);
  fill(&w2, 2, HIDDEN, OUT, 3.0);
  fill(&b2, 1, OUT, 0, 4.0);
  fill(&x3, 2, 3, IN, 5.0);
  fill(&x5, 2, 5, IN, 6.0);
  int64_t labels[3] = {2, 0, 1}, labelShape[1] = {3};
  memset(&y3, 0, sizeof y3);
  y3.dl.data = labels;
  y3.dl.device.device_type = kDLCPU;
  y3.dl.ndim = 1;
  y3.dl.dtype.code = kDLInt;
  y3.dl.dtype.bits = 64;
  y3.dl.dtype.lanes = 1;
  y3.dl.shape = labelShape;

  /* predict at two batch sizes: one compiled entry (B is symbolic) */
  dlm_function *predict;
  die(dlm_module_function(m, "predict", &predict), "dlm_module_function");
  dlm_arg p3[5] = {dlm_arg_tensor(&w1.dl), dlm_arg_tensor(&b1.dl), dlm_arg_tensor(&w2.dl),
                   dlm_arg_tensor(&b2.dl), dlm_arg_tensor(&x3.dl)};
  dlm_result *r = call(predict, p3, 5);
  printResult("predict3", r);
  dlm_result_free(r);
  dlm_arg p5[5] = {p3[0], p3[1], p3[2], p3[3], dlm_arg_tensor(&x5.dl)};
  r = call(predict, p5, 5);
  printResult("predict5", r);
  dlm_result_free(r);

  /* the same input as a strided view: x3's transpose stored column-major */
  float xT[3 * IN];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < IN; ++j)
      xT[j * 3 + i] = x3.data[i * IN + j];
  int64_t stridedShape[2] = {3, IN}, strides[2] = {1, 3};
  DLTensor strided = x3.dl;
  strided.data = xT;
  strided.shape = stridedShape;
  strided.strides = strides;
  dlm_arg ps[5] = {p3[0], p3[1], p3[2], p3[3], dlm_arg_tensor(&strided)};
  r = call(predict, ps, 5);
  printResult("predict3strided", r);
  dlm_result_free(r);

  /* the loss, its gradient, value_and_grad, a training step */
  dlm_arg params[4] = {p3[0], p3[1], p3[2], p3[3]};
  dlm_arg la[3] = {dlm_arg_tuple(params, 4), dlm_arg_tensor(&x3.dl), dlm_arg_tensor(&y3.dl)};
  dlm_function *loss, *gradLoss, *valueAndGrad, *step;
  die(dlm_module_function(m, "loss", &loss), "loss");
  r = call(loss, la, 3);
  printResult("loss", r);
  dlm_result_free(r);
  int64_t zero = 0;
  die(dlm_module_grad(m, "loss", &zero, 1, 0, &gradLoss), "grad");
  r = call(gradLoss, la, 3);
  printResult("grad", r);
  dlm_result_free(r);
  die(dlm_module_grad(m, "loss", NULL, 0, DLM_GRAD_WITH_VALUE, &valueAndGrad), "value_and_grad");
  r = call(valueAndGrad, la, 3);
  printResult("value_and_grad", r);
  dlm_result_free(r);
  die(dlm_module_function(m, "step", &step), "step");
  dlm_arg sa[4] = {la[0], la[1], la[2], dlm_arg_float(0.5)};
  r = call(step, sa, 4);
  printResult("step", r);
  const char *type;
  die(dlm_result_type(r, &type), "dlm_result_type");
  printf("step type %s\n", type);
  dlm_result_free(r);

  /* scalars in and out */
  dlm_function *stats;
  die(dlm_module_function(m, "stats", &stats), "stats");
  Tensor v;
  fill(&v, 1, 6, 0, 7.0);
  dlm_arg st[4] = {dlm_arg_tensor(&v.dl), dlm_arg_int(41), dlm_arg_float(2.0), dlm_arg_bool(1)};
  r = call(stats, st, 4);
  printResult("stats", r);
  dlm_result_free(r);

  /* a view of a borrowed input comes back as a copy; a managed input stays shared */
  dlm_function *transposed;
  die(dlm_module_function(m, "transposed", &transposed), "transposed");
  dlm_arg ta[1] = {dlm_arg_tensor(&x3.dl)};
  r = call(transposed, ta, 1);
  DLManagedTensor *out;
  die(dlm_result_tensor(r, &out), "dlm_result_tensor");
  printf("transposed borrowed shares memory: %d\n",
         (const char *)out->dl_tensor.data + out->dl_tensor.byte_offset == (const char *)x3.data);
  printResult("transposed", r);
  out->deleter(out);
  dlm_result_free(r);
  DLManagedTensor managed;
  memset(&managed, 0, sizeof managed);
  managed.dl_tensor = x3.dl;
  managed.deleter = countingDeleter;
  dlm_arg ma[1] = {dlm_arg_managed(&managed)};
  r = call(transposed, ma, 1);
  die(dlm_result_tensor(r, &out), "dlm_result_tensor");
  printf("transposed managed shares memory: %d, deleted: %d\n",
         (const char *)out->dl_tensor.data + out->dl_tensor.byte_offset == (const char *)x3.data,
         deleted);
  dlm_result_free(r);
  out->deleter(out);
  printf("managed deleted after the result: %d\n", deleted);

  dlm_function *nothing;
  die(dlm_module_function(m, "nothing", &nothing), "nothing");
  r = call(nothing, ta, 1);
  printResult("nothing", r);
  dlm_result_free(r);

  /* a str argument is compiled in */
  dlm_source src = {"strs.dlm", "def length(s, x):\n    print(s)\n    return x * 2.0\n", 1, 0};
  dlm_module *sm;
  die(dlm_module_load_sources(&src, 1, &options, &sm), "load_sources");
  dlm_function *length;
  die(dlm_module_function(sm, "length", &length), "length");
  dlm_arg la2[2] = {dlm_arg_str("hello from a str argument"), dlm_arg_float(1.5)};
  fflush(stdout);
  r = call(length, la2, 2);
  fflush(stdout);
  printResult("length", r);
  dlm_result_free(r);

  /* constants (dlm_options.constants) in a def cut out of an indented block of another file
     (dlm_source.indent, first_line): positions count as in that file */
  dlm_constant constants[3] = {{"N", DLM_KIND_INT, 3, 0.0},
                               {"SCALE", DLM_KIND_FLOAT, 0, 0.5},
                               {"FLAG", DLM_KIND_BOOL, 1, 0.0}};
  dlm_options withConstants = options;
  withConstants.num_constants = 3;
  withConstants.constants = constants;
  dlm_source cut = {"host.py",
                    "    def scaled(x):\n"
                    "        return zeros(N).shape[0], N * SCALE * x, FLAG\n",
                    41, 4};
  dlm_module *cm;
  die(dlm_module_load_sources(&cut, 1, &withConstants, &cm), "load_sources with constants");
  dlm_function *scaled;
  die(dlm_module_function(cm, "scaled", &scaled), "scaled");
  dlm_arg scaledArgs[1] = {dlm_arg_float(2.0)};
  r = call(scaled, scaledArgs, 1);
  printResult("scaled", r);
  dlm_result_free(r);
  dlm_function_free(scaled);
  dlm_module_free(cm);
  dlm_source oops = {"host.py", "    def oops(x):\n        return x + nope\n", 41, 4};
  expectError(dlm_module_load_sources(&oops, 1, &withConstants, &cm), "indented source");
  constants[1].kind = DLM_KIND_TUPLE;
  expectError(dlm_module_load_sources(&cut, 1, &withConstants, &cm), "bad constant");

  /* bad calls: each a status, never a crash */
  dlm_arg bad[5] = {p3[0], p3[1], p3[2], p3[3], p3[4]};
  Tensor wrongCols;
  fill(&wrongCols, 2, 3, 5, 8.0);
  bad[4] = dlm_arg_tensor(&wrongCols.dl);
  expectError(dlm_call(predict, bad, 5, &r), "x with 5 columns");
  expectError(dlm_call(predict, bad, 5, &r), "x with 5 columns again");
  Tensor rank1;
  fill(&rank1, 1, 4, 0, 9.0);
  bad[4] = dlm_arg_tensor(&rank1.dl);
  expectError(dlm_call(predict, bad, 5, &r), "rank-1 x");
  expectError(dlm_call(predict, p3, 4, &r), "four arguments");
  DLTensor u8 = x3.dl;
  u8.dtype.code = kDLUInt;
  u8.dtype.bits = 8;
  bad[4] = dlm_arg_tensor(&u8);
  expectError(dlm_call(predict, bad, 5, &r), "uint8 x");
  DLTensor gpu = x3.dl;
  gpu.device.device_type = kDLCUDA;
  bad[4] = dlm_arg_tensor(&gpu);
  expectError(dlm_call(predict, bad, 5, &r), "cuda x");
  bad[4] = dlm_arg_tensor(NULL);
  expectError(dlm_call(predict, bad, 5, &r), "null tensor");
  dlm_arg badLabels[3] = {la[0], la[1], dlm_arg_tensor(&x5.dl)};
  expectError(dlm_call(loss, badLabels, 3, &r), "f32 labels");
  dlm_arg mismatched[3] = {la[0], la[1], la[2]};
  Tensor y5;
  fill(&y5, 1, 5, 0, 0.0);
  int64_t labels5[5] = {0, 1, 2, 0, 1};
  y5.dl.data = labels5;
  y5.dl.dtype.code = kDLInt;
  y5.dl.dtype.bits = 64;
  mismatched[2] = dlm_arg_tensor(&y5.dl);
  expectError(dlm_call(loss, mismatched, 3, &r), "batch sizes that disagree");
  dlm_function *pick;
  die(dlm_module_function(m, "pick", &pick), "pick");
  dlm_arg pa[2] = {dlm_arg_tensor(&v.dl), dlm_arg_int(7)};
  expectError(dlm_call(pick, pa, 2, &r), "index out of range");
  expectError(dlm_call(NULL, p3, 5, &r), "null function");
  expectError(dlm_call((dlm_function *)m, p3, 5, &r), "module as function");
  dlm_function *unknown = NULL;
  expectError(dlm_module_function(m, "predcit", &unknown), "unknown def");
  dlm_function *freed;
  die(dlm_module_function(m, "predict", &freed), "function");
  die(dlm_function_free(freed), "free");
  expectError(dlm_call(freed, p3, 5, &r), "freed function");
  expectError(dlm_function_free(freed), "double free");
  dlm_source broken = {"broken.dlm", "def f(x):\n    return x +\n", 1, 0};
  dlm_module *bm = NULL;
  expectError(dlm_module_load_sources(&broken, 1, NULL, &bm), "syntax error");
  expectError(dlm_module_load("/nonexistent/model.dlm", NULL, &bm), "missing file");
  dlm_options badOptions = DLM_OPTIONS_INIT;
  badOptions.engine = 7;
  expectError(dlm_module_load(argv[1], &badOptions, &bm), "bad options");
  dlm_function *badGrad;
  die(dlm_module_grad(m, "predict", NULL, 0, 0, &badGrad), "grad of predict");
  expectError(dlm_call(badGrad, p3, 5, &r), "grad of a non-scalar");

  /* the module handle may go first: functions keep it alive */
  die(dlm_module_free(m), "dlm_module_free");
  r = call(predict, p3, 5);
  printResult("predict3again", r);
  dlm_result_free(r);
  expectError(dlm_module_num_defs(m, &defs), "freed module");
  dlm_function *all[] = {predict,    loss,    gradLoss, valueAndGrad, step,  stats,
                         transposed, nothing, pick,     badGrad,      length};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    die(dlm_function_free(all[i]), "dlm_function_free");
  die(dlm_module_free(sm), "dlm_module_free");
  printf("done\n");
  return 0;
}
