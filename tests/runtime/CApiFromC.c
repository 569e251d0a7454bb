/* tests/runtime/CApiFromC.c - the C ABI used from plain C, as JIT/AOT code does.
 * Prints a few results that tests/runtime/capi-from-c.test checks. */
#include "runtime/CApi.h"

#include <stdio.h>

int main(void) {
  int64_t shape[2] = {2, 2};
  float a[4] = {1, 2, 3, 4};
  dlm_tensor *x = dlm_tensor_from_data(DLM_F32, 2, shape, a);
  dlm_tensor *two = dlm_tensor_scalar_i64(2);
  dlm_tensor *ins[2] = {x, two};
  dlm_tensor *out = NULL;
  int32_t nout = 0;
  if (dlm_kernel_call(dlm_kernel_id("pow"), ins, 2, NULL, &out, 1, &nout) != 0) {
    printf("error: %s\n", dlm_last_error());
    return 1;
  }
  const float *o = (const float *)dlm_tensor_data(out);
  printf("pow dtype=%d rank=%d values=%g %g %g %g\n", dlm_tensor_dtype(out), dlm_tensor_rank(out),
         o[0], o[1], o[2], o[3]);
  dlm_tensor_release(out);

  int64_t bad[1] = {3};
  dlm_tensor *y = dlm_tensor_zeros(DLM_F32, 1, bad);
  dlm_tensor *ins2[2] = {x, y};
  int rc = dlm_kernel_call(dlm_kernel_id("add"), ins2, 2, NULL, &out, 1, &nout);
  printf("add rc=%d error=%s\n", rc, dlm_last_error());
  dlm_tensor_release(y);
  dlm_tensor_release(two);
  dlm_tensor_release(x);
  return 0;
}
