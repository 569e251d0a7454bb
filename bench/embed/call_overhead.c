/*===- bench/embed/call_overhead.c - The cost of one call through libdlm ----===*
 *
 * Calls a tiny def (bench/embed/tiny.dlm: `add(x, y) = x + y` on 1-element f32 tensors) N times
 * through the C API, after a warm-up call that compiles it, and prints the CPU time per call
 * (clock_gettime(CLOCK_PROCESS_CPUTIME_ID): on a loaded machine wall time is noise). Each call
 * converts the arguments, finds the compiled code, runs it, and the result's tensor is taken and
 * freed, as a host would. Usage: call_overhead TINY.dlm [N] [jit|graph]
 *
 *===----------------------------------------------------------------------===*/
#include "dlm/dlm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpuSeconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void check(dlm_status *s) {
  if (!s)
    return;
  fputs(dlm_status_message(s), stderr);
  exit(1);
}

static double callNs(dlm_function *f, const dlm_arg *args, long n) {
  double start = cpuSeconds();
  for (long i = 0; i < n; ++i) {
    dlm_result *r = NULL;
    DLManagedTensor *t = NULL;
    check(dlm_call(f, args, 2, &r));
    check(dlm_result_tensor(r, &t));
    t->deleter(t);
    check(dlm_result_free(r));
  }
  return (cpuSeconds() - start) / (double)n * 1e9;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: call_overhead TINY.dlm [N] [jit|graph]\n");
    return 2;
  }
  long n = argc > 2 ? atol(argv[2]) : 200000;
  dlm_options options = DLM_OPTIONS_INIT;
  options.engine = argc > 3 && strcmp(argv[3], "graph") == 0 ? DLM_ENGINE_GRAPH : DLM_ENGINE_JIT;
  options.num_threads = 1;
  dlm_module *m = NULL;
  dlm_function *f = NULL;
  check(dlm_module_load(argv[1], &options, &m));
  check(dlm_module_function(m, "add", &f));
  float xs[1] = {1.5f}, ys[1] = {2.25f};
  int64_t shape[1] = {1};
  DLTensor x = {xs, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor y = {ys, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  dlm_arg args[2] = {dlm_arg_tensor(&x), dlm_arg_tensor(&y)};
  callNs(f, args, 1); /* compiles */
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    double ns = callNs(f, args, n / 5);
    best = ns < best ? ns : best;
  }
  printf("C call of a 1-element add (%s): best of 5 rounds of %ld calls: %.0f ns CPU per call\n",
         options.engine == DLM_ENGINE_JIT ? "jit" : "graph", n / 5, best);
  check(dlm_function_free(f));
  check(dlm_module_free(m));
  return 0;
}
