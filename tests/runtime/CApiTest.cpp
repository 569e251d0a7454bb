//===- tests/runtime/CApiTest.cpp - The C ABI as JIT/AOT code uses it ---------===//
#include "runtime/CApi.h"

#include <gtest/gtest.h>

#include <cstring>
#include <unistd.h>

namespace {

TEST(CApi, CreateCallRelease) {
  int64_t shape[2] = {2, 3};
  float data[6] = {1, 2, 3, 4, 5, 6};
  dlm_tensor *a = dlm_tensor_from_data(DLM_F32, 2, shape, data);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(dlm_tensor_dtype(a), DLM_F32);
  EXPECT_EQ(dlm_tensor_rank(a), 2);
  EXPECT_EQ(dlm_tensor_shape(a)[1], 3);
  EXPECT_EQ(dlm_tensor_numel(a), 6);
  dlm_tensor *s = dlm_tensor_scalar_f64(0.5);
  int32_t mul = dlm_kernel_id("mul");
  ASSERT_GE(mul, 0);
  dlm_tensor *ins[2] = {a, s};
  dlm_tensor *out = nullptr;
  int32_t nout = -1;
  ASSERT_EQ(dlm_kernel_call(mul, ins, 2, nullptr, &out, 1, &nout), 0) << dlm_last_error();
  EXPECT_EQ(nout, 1);
  // A float scalar does not widen an f32 tensor.
  EXPECT_EQ(dlm_tensor_dtype(out), DLM_F32);
  const float *o = static_cast<const float *>(dlm_tensor_data(out));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(o[i], data[i] * 0.5f);
  dlm_tensor_release(out);
  dlm_tensor_release(s);
  dlm_tensor_release(a);
}

// dlm_tensor_slice (codegen's static slices) is the view the `slice` kernel makes, also of a
// view; bounds outside the tensor are an error, not a wild view.
TEST(CApi, SliceViewMatchesTheKernel) {
  int64_t shape[2] = {4, 6};
  float data[24];
  for (int i = 0; i < 24; ++i) data[i] = (float)i;
  dlm_tensor *a = dlm_tensor_from_data(DLM_F32, 2, shape, data);
  int32_t transpose = dlm_kernel_id("transpose");
  dlm_tensor *t = nullptr; // [6, 4], strides [1, 6]
  ASSERT_EQ(dlm_kernel_call(transpose, &a, 1, nullptr, &t, 1, nullptr), 0) << dlm_last_error();
  int64_t start[2] = {1, 2}, size[2] = {3, 2};
  dlm_tensor *v = dlm_tensor_slice(t, 2, start, size);
  ASSERT_NE(v, nullptr) << dlm_last_error();
  dlm_attrs *attrs = dlm_attrs_new();
  int64_t begin[2] = {1, 2}, end[2] = {4, 4}, step[2] = {1, 1};
  dlm_attrs_set_ints(attrs, "begin", begin, 2);
  dlm_attrs_set_ints(attrs, "end", end, 2);
  dlm_attrs_set_ints(attrs, "step", step, 2);
  dlm_tensor *k = nullptr;
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("slice"), &t, 1, attrs, &k, 1, nullptr), 0) << dlm_last_error();
  ASSERT_EQ(dlm_tensor_rank(v), 2);
  for (int d = 0; d < 2; ++d) {
    EXPECT_EQ(dlm_tensor_shape(v)[d], dlm_tensor_shape(k)[d]);
    EXPECT_EQ(dlm_tensor_strides(v)[d], dlm_tensor_strides(k)[d]);
  }
  EXPECT_EQ(dlm_tensor_data(v), dlm_tensor_data(k));
  EXPECT_EQ(*static_cast<const float *>(dlm_tensor_data(v)), 13.0f); // t[1, 2] = a[2, 1]
  int64_t past[2] = {4, 2};
  EXPECT_EQ(dlm_tensor_slice(t, 2, past, size), nullptr);
  EXPECT_NE(std::strstr(dlm_last_error(), "out of bounds"), nullptr);
  EXPECT_EQ(dlm_tensor_slice(t, 1, start, size), nullptr);
  dlm_attrs_free(attrs);
  for (dlm_tensor *x : {k, v, t, a}) dlm_tensor_release(x);
}

// dlm_tensor_slice_grad gives the bytes of the slice_grad kernel, also for a gradient that is a
// view (a transpose), and refuses a window outside the input.
TEST(CApi, SliceGradMatchesTheKernel) {
  int64_t shape[2] = {2, 3};
  float data[6] = {1, 2, 3, 4, 5, 6};
  dlm_tensor *a = dlm_tensor_from_data(DLM_F32, 2, shape, data), *g = nullptr;
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("transpose"), &a, 1, nullptr, &g, 1, nullptr), 0); // [3, 2]
  dlm_attrs *attrs = dlm_attrs_new();
  int64_t input[2] = {4, 5}, begin[2] = {1, 2}, end[2] = {4, 4}, step[2] = {1, 1};
  dlm_attrs_set_ints(attrs, "input_shape", input, 2);
  dlm_attrs_set_ints(attrs, "begin", begin, 2);
  dlm_attrs_set_ints(attrs, "end", end, 2);
  dlm_attrs_set_ints(attrs, "step", step, 2);
  dlm_tensor *k = nullptr, *d = dlm_tensor_slice_grad(g, attrs, 2, input, begin);
  ASSERT_NE(d, nullptr) << dlm_last_error();
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("slice_grad"), &g, 1, attrs, &k, 1, nullptr), 0) << dlm_last_error();
  ASSERT_EQ(dlm_tensor_numel(d), 20);
  EXPECT_EQ(std::memcmp(dlm_tensor_data(d), dlm_tensor_data(k), 20 * sizeof(float)), 0);
  EXPECT_EQ(static_cast<const float *>(dlm_tensor_data(d))[1 * 5 + 3], 4.0f); // g[0, 1] = a[1, 0]
  int64_t late[2] = {2, 2};
  EXPECT_EQ(dlm_tensor_slice_grad(g, attrs, 2, input, late), nullptr);
  dlm_attrs_free(attrs);
  for (dlm_tensor *x : {k, d, g, a}) dlm_tensor_release(x);
}

// dlm_stack_top / dlm_stack_pop (generated code's direct calls) read what the kernels read, and
// an empty stack is the kernels' error.
TEST(CApi, StackReadsMatchTheKernels) {
  int64_t entry[2] = {1, 3};
  float a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
  dlm_tensor *x = dlm_tensor_from_data(DLM_F32, 2, entry, a), *y = dlm_tensor_from_data(DLM_F32, 2, entry, b);
  dlm_attrs *attrs = dlm_attrs_new();
  dlm_attrs_set_int(attrs, "rank", 2);
  dlm_tensor *s0 = nullptr, *s1 = nullptr, *s2 = nullptr;
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("stack_new"), nullptr, 0, attrs, &s0, 1, nullptr), 0) << dlm_last_error();
  dlm_tensor *push1[2] = {s0, x}, *push2[2] = {nullptr, y};
  int32_t push = dlm_kernel_id("stack_push");
  ASSERT_EQ(dlm_kernel_call(push, push1, 2, nullptr, &s1, 1, nullptr), 0) << dlm_last_error();
  push2[0] = s1;
  ASSERT_EQ(dlm_kernel_call(push, push2, 2, nullptr, &s2, 1, nullptr), 0) << dlm_last_error();
  dlm_tensor *top = dlm_stack_top(s2), *pop = dlm_stack_pop(s2), *kernelTop = nullptr, *kernelPop = nullptr;
  ASSERT_NE(top, nullptr);
  ASSERT_NE(pop, nullptr);
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("stack_top"), &s2, 1, nullptr, &kernelTop, 1, nullptr), 0);
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("stack_pop"), &s2, 1, nullptr, &kernelPop, 1, nullptr), 0);
  ASSERT_EQ(dlm_tensor_rank(top), 2);
  EXPECT_EQ(dlm_tensor_shape(top)[1], 3);
  EXPECT_EQ(dlm_tensor_data(top), dlm_tensor_data(kernelTop));
  EXPECT_EQ(static_cast<const float *>(dlm_tensor_data(top))[2], 6.0f);
  ASSERT_EQ(dlm_tensor_rank(pop), 3);
  EXPECT_EQ(dlm_tensor_shape(pop)[0], 1);
  EXPECT_EQ(dlm_tensor_shape(kernelPop)[0], 1);
  EXPECT_EQ(dlm_tensor_data(pop), dlm_tensor_data(kernelPop));
  dlm_tensor *popTop = dlm_stack_top(pop);
  EXPECT_EQ(static_cast<const float *>(dlm_tensor_data(popTop))[0], 1.0f);
  EXPECT_EQ(dlm_stack_top(s0), nullptr);
  EXPECT_STREQ(dlm_last_error(), "stack_top: the stack is empty");
  EXPECT_EQ(dlm_stack_pop(s0), nullptr);
  EXPECT_STREQ(dlm_last_error(), "stack_pop: the stack is empty");
  dlm_attrs_free(attrs);
  for (dlm_tensor *t : {popTop, kernelPop, kernelTop, pop, top, s2, s1, s0, y, x}) dlm_tensor_release(t);
}

TEST(CApi, ErrorsAreReportedNotThrown) {
  int64_t s1[2] = {3, 4}, s2[1] = {5};
  dlm_tensor *a = dlm_tensor_zeros(DLM_F32, 2, s1);
  dlm_tensor *b = dlm_tensor_zeros(DLM_F32, 1, s2);
  dlm_tensor *ins[2] = {a, b};
  dlm_tensor *out = nullptr;
  int32_t nout = 0;
  EXPECT_EQ(dlm_kernel_call(dlm_kernel_id("add"), ins, 2, nullptr, &out, 1, &nout), 1);
  EXPECT_STREQ(dlm_last_error(), "cannot broadcast f32[3, 4] with f32[5]");
  EXPECT_EQ(nout, 0);
  EXPECT_EQ(dlm_kernel_id("frobnicate"), -1);
  EXPECT_NE(std::strstr(dlm_last_error(), "frobnicate"), nullptr);
  EXPECT_EQ(dlm_tensor_empty(99, 1, s2), nullptr);
  EXPECT_NE(std::strstr(dlm_last_error(), "invalid dtype"), nullptr);
  dlm_tensor_release(a);
  dlm_tensor_release(b);
}

TEST(CApi, AttrsAndRefcounts) {
  int64_t shape[1] = {4};
  double data[4] = {1.5, -2.5, 3.5, 0};
  dlm_tensor *a = dlm_tensor_from_data(DLM_F64, 1, shape, data);
  dlm_tensor_retain(a);
  dlm_tensor_release(a); // still alive: one reference left
  dlm_attrs *attrs = dlm_attrs_new();
  dlm_attrs_set_dtype(attrs, "dtype", DLM_I64);
  dlm_tensor *out = nullptr;
  int32_t nout = 0;
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("cast"), &a, 1, attrs, &out, 1, &nout), 0)
      << dlm_last_error();
  EXPECT_EQ(dlm_tensor_dtype(out), DLM_I64);
  EXPECT_EQ(static_cast<const int64_t *>(dlm_tensor_data(out))[1], -2);
  int64_t v = 0;
  EXPECT_EQ(dlm_tensor_item_i64(out, &v), 1); // four elements: not a scalar
  dlm_attrs_free(attrs);
  dlm_tensor_release(out);
  dlm_tensor_release(a);
}

TEST(CApi, TooFewOutputSlotsIsAnError) {
  int64_t shape[1] = {2};
  dlm_tensor *x = dlm_tensor_zeros(DLM_F32, 1, shape);
  dlm_attrs *attrs = dlm_attrs_new();
  dlm_attrs_set_int(attrs, "axis", 0);
  int64_t sizes[2] = {1, 1};
  dlm_attrs_set_ints(attrs, "sizes", sizes, 2);
  dlm_tensor *out = nullptr;
  int32_t nout = 0;
  // split into two parts returns two tensors: one slot is not enough.
  EXPECT_EQ(dlm_kernel_call(dlm_kernel_id("split"), &x, 1, attrs, &out, 1, &nout), 1);
  EXPECT_NE(std::strstr(dlm_last_error(), "produced 2 outputs"), nullptr);
  dlm_attrs_free(attrs);
  dlm_tensor_release(x);
}

} // namespace

namespace {
TEST(CApi, StringOperandsAndListAttrs) {
  char path[] = "/tmp/dlm-capi-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  int64_t shape[1] = {3};
  double data[3] = {1, 2, 3};
  dlm_tensor *t = dlm_tensor_from_data(DLM_F64, 1, shape, data);
  dlm_value ins[2] = {{nullptr, path}, {t, nullptr}};
  int32_t nout = -1;
  ASSERT_EQ(dlm_kernel_call_values(dlm_kernel_id("save"), ins, 2, nullptr, nullptr, 0, &nout), 0)
      << dlm_last_error();
  EXPECT_EQ(nout, 0);
  dlm_attrs *attrs = dlm_attrs_new();
  int32_t dtypes[1] = {DLM_F64};
  int64_t ranks[1] = {1}, dims[1] = {3};
  dlm_attrs_set_dtypes(attrs, "dtypes", dtypes, 1);
  dlm_attrs_set_shapes(attrs, "shapes", dims, ranks, 1);
  dlm_tensor *out = nullptr;
  ASSERT_EQ(dlm_kernel_call_values(dlm_kernel_id("load"), ins, 1, attrs, &out, 1, &nout), 0) << dlm_last_error();
  EXPECT_EQ(static_cast<const double *>(dlm_tensor_data(out))[2], 3.0);
  dlm_tensor_release(out);
  dtypes[0] = DLM_F32;
  dlm_attrs_set_dtypes(attrs, "dtypes", dtypes, 1);
  EXPECT_EQ(dlm_kernel_call_values(dlm_kernel_id("load"), ins, 1, attrs, &out, 1, &nout), 1);
  EXPECT_NE(std::strstr(dlm_last_error(), "the program expects f32"), nullptr) << dlm_last_error();
  dlm_attrs_free(attrs);
  dlm_tensor_release(t);
  unlink(path);
}
} // namespace
