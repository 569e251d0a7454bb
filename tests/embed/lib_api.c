/*===- tests/embed/lib_api.c - An AOT library's typed functions, from C ----===*
 *
 * tests/embed/lib-api.test builds Inputs/lib_model.dlm with `dlmc --emit=lib` into libmodel.so
 * and libmodel.a and links this program with each. It calls the forward pass at two batch sizes
 * (one symbolic dim), the loss, its gradient and value_and_grad, and prints the results in the
 * form Inputs/check_mlp.py checks against PyTorch; then scalars, and the bad calls and run-time
 * errors, each a status and a message, never a crash.
 *
 *===----------------------------------------------------------------------===*/
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Deterministic data: element i of a tensor with salt s (Inputs/check_mlp.py has the same). */
static void fill(float *data, int n, double salt) {
  for (int i = 0; i < n; ++i)
    data[i] = (float)sin(i * 0.37 + salt) * 0.5f;
}

/* "NAME f32 [d0, d1] v0 v1 ..." */
static void print(const char *name, const float *data, int rank, const int64_t *shape) {
  int64_t n = 1;
  printf("%s f32 [", name);
  for (int d = 0; d < rank; ++d) {
    printf("%s%lld", d ? ", " : "", (long long)shape[d]);
    n *= shape[d];
  }
  printf("]");
  for (int64_t i = 0; i < n; ++i)
    printf(" %.9g", data[i]);
  printf("\n");
}

static void status(const char *what, int rc) {
  printf("%s: status %d: %s", what, rc, rc ? model_last_error() : "ok\n");
}

int main(void) {
  float w1[4 * 8], b1[8], w2[8 * 3], b2[3], x3[3 * 4], x5[5 * 4];
  fill(w1, 32, 1.0);
  fill(b1, 8, 2.0);
  fill(w2, 24, 3.0);
  fill(b2, 3, 4.0);
  fill(x3, 12, 5.0);
  fill(x5, 20, 6.0);
  int64_t y3[3] = {2, 0, 1};

  float out3[3 * 3], out5[5 * 3];
  if (model_predict(3, w1, b1, w2, b2, x3, out3) || model_predict(5, w1, b1, w2, b2, x5, out5)) {
    fprintf(stderr, "predict failed:\n%s", model_last_error());
    return 1;
  }
  print("predict3", out3, 2, (const int64_t[]){3, 3});
  print("predict5", out5, 2, (const int64_t[]){5, 3});

  float loss, vloss, g1[32], gb1[8], g2[24], gb2[3], v1[32], vb1[8], v2[24], vb2[3];
  if (model_loss(3, w1, b1, w2, b2, x3, y3, &loss) ||
      model_grad_loss(3, w1, b1, w2, b2, x3, y3, g1, gb1, g2, gb2) ||
      model_value_and_grad_loss(3, w1, b1, w2, b2, x3, y3, &vloss, v1, vb1, v2, vb2)) {
    fprintf(stderr, "loss failed:\n%s", model_last_error());
    return 1;
  }
  print("loss", &loss, 0, NULL);
  print("grad.0", g1, 2, (const int64_t[]){4, 8});
  print("grad.1", gb1, 1, (const int64_t[]){8});
  print("grad.2", g2, 2, (const int64_t[]){8, 3});
  print("grad.3", gb2, 1, (const int64_t[]){3});
  print("value_and_grad.0", &vloss, 0, NULL);
  print("value_and_grad.1.0", v1, 2, (const int64_t[]){4, 8});
  print("value_and_grad.1.1", vb1, 1, (const int64_t[]){8});
  print("value_and_grad.1.2", v2, 2, (const int64_t[]){8, 3});
  print("value_and_grad.1.3", vb2, 1, (const int64_t[]){3});

  /* Scalars in (by value) and out; a NULL result pointer skips that result. */
  double xs[3] = {1, 2, 3}, ys[3], total;
  bool big;
  status("scale", model_scale(3, xs, 4, 0.5, true, ys, &total, &big));
  printf("scale %g %g %g sum %g big %d\n", ys[0], ys[1], ys[2], total, (int)big);
  total = 0;
  status("scale without y", model_scale(3, xs, 1, 2.0, false, NULL, &total, NULL));
  printf("scale sum %g\n", total);

  /* Errors: a run-time error of the program at its line, bad sizes, null arrays. */
  float picked = 0;
  status("pick in range", model_pick(3, x3, 2, &picked));
  printf("picked %.9g\n", picked);
  status("pick out of range", model_pick(3, x3, 7, &picked));
  status("negative size", model_predict(-1, w1, b1, w2, b2, x3, out3));
  status("null input", model_predict(3, w1, NULL, w2, b2, x3, out3));
  status("empty batch", model_predict(0, w1, b1, w2, b2, NULL, out3));
  status("after errors", model_predict(3, w1, b1, w2, b2, x3, out3));
  printf("done\n");
  return 0;
}
