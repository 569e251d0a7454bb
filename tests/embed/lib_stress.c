/*===- tests/embed/lib_stress.c - An AOT library's functions from many threads ===*
 *
 * tests/embed/lib-stress.test links libmodel.so (Inputs/lib_model.dlm, dlmc --emit=lib). THREADS
 * threads released at once by a barrier make the first calls of model_predict and
 * model_grad_loss together (each entry's one-time initialisation races), then CALLS calls each at
 * batch sizes 1 to 4; afterwards one thread computes every result again, and each threaded
 * result must be bit for bit the same (the same code on the same inputs).
 *
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L
#include "model.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_B = 4, PREDICT = MAX_B * 3, GRAD = 32 + 8 + 24 + 3 };

static float w1[32], b1[8], w2[24], b2[3], x[MAX_B * 4];
static int64_t y[MAX_B] = {2, 0, 1, 1};
static int calls;
static pthread_barrier_t start;

/* What one call writes: predict's [B, 3] and grad(loss)'s four arrays, one after another. */
typedef struct {
  float out[PREDICT + GRAD];
  int status;
} Outcome;

static void fill(float *data, int n, double salt) {
  for (int i = 0; i < n; ++i)
    data[i] = (float)sin(i * 0.37 + salt) * 0.5f;
}

static Outcome call(int64_t b) {
  Outcome o;
  memset(&o, 0, sizeof o);
  float *g = o.out + PREDICT;
  o.status = model_predict(b, w1, b1, w2, b2, x, o.out) |
             model_grad_loss(b, w1, b1, w2, b2, x, y, g, g + 32, g + 40, g + 64);
  return o;
}

static void *worker(void *arg) {
  Outcome *mine = arg;
  pthread_barrier_wait(&start);
  for (int k = 0; k < calls; ++k)
    mine[k] = call(k % MAX_B + 1);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 16;
  calls = argc > 2 ? atoi(argv[2]) : 100;
  fill(w1, 32, 1.0);
  fill(b1, 8, 2.0);
  fill(w2, 24, 3.0);
  fill(b2, 3, 4.0);
  fill(x, MAX_B * 4, 5.0);
  Outcome *outcomes = calloc((size_t)threads * calls, sizeof(Outcome));
  pthread_t *ids = calloc((size_t)threads, sizeof(pthread_t));
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  for (int t = 0; t < threads; ++t)
    pthread_create(&ids[t], NULL, worker, outcomes + (size_t)t * calls);
  for (int t = 0; t < threads; ++t)
    pthread_join(ids[t], NULL);
  int bad = 0;
  for (int k = 0; k < calls; ++k) {
    Outcome want = call(k % MAX_B + 1);
    for (int t = 0; t < threads; ++t) {
      const Outcome *got = &outcomes[(size_t)t * calls + k];
      if (got->status || want.status || memcmp(got->out, want.out, sizeof want.out)) {
        if (bad++ < 5)
          printf("thread %d call %d differs (status %d, %d): %s", t, k, got->status,
                 want.status, model_last_error());
      }
    }
  }
  printf("%d calls on %d threads: %d differ\n", threads * calls * 2, threads, bad);
  free(outcomes);
  free(ids);
  return bad != 0;
}
