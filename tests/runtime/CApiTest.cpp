//===- tests/runtime/CApiTest.cpp - The C ABI as JIT/AOT code uses it ---------===//
#include "runtime/CApi.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <unistd.h>
#include <vector>

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
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(o[i], data[i] * 0.5f);
  dlm_tensor_release(out);
  dlm_tensor_release(s);
  dlm_tensor_release(a);
}

// dlm_tensor_slice (codegen's static slices) is the view the `slice` kernel makes, also of a
// view; bounds outside the tensor are an error, not a wild view.
TEST(CApi, SliceViewMatchesTheKernel) {
  int64_t shape[2] = {4, 6};
  float data[24];
  for (int i = 0; i < 24; ++i)
    data[i] = (float)i;
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
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("slice"), &t, 1, attrs, &k, 1, nullptr), 0)
      << dlm_last_error();
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
  for (dlm_tensor *x : {k, v, t, a})
    dlm_tensor_release(x);
}

// dlm_tensor_slice_grad gives the bytes of the slice_grad kernel, also for a gradient that is a
// view (a transpose), and refuses a window outside the input.
TEST(CApi, SliceGradMatchesTheKernel) {
  int64_t shape[2] = {2, 3};
  float data[6] = {1, 2, 3, 4, 5, 6};
  dlm_tensor *a = dlm_tensor_from_data(DLM_F32, 2, shape, data), *g = nullptr;
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("transpose"), &a, 1, nullptr, &g, 1, nullptr),
            0); // [3, 2]
  dlm_attrs *attrs = dlm_attrs_new();
  int64_t input[2] = {4, 5}, begin[2] = {1, 2}, end[2] = {4, 4}, step[2] = {1, 1};
  dlm_attrs_set_ints(attrs, "input_shape", input, 2);
  dlm_attrs_set_ints(attrs, "begin", begin, 2);
  dlm_attrs_set_ints(attrs, "end", end, 2);
  dlm_attrs_set_ints(attrs, "step", step, 2);
  dlm_tensor *k = nullptr, *d = dlm_tensor_slice_grad(g, attrs, 2, input, begin);
  ASSERT_NE(d, nullptr) << dlm_last_error();
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("slice_grad"), &g, 1, attrs, &k, 1, nullptr), 0)
      << dlm_last_error();
  ASSERT_EQ(dlm_tensor_numel(d), 20);
  EXPECT_EQ(std::memcmp(dlm_tensor_data(d), dlm_tensor_data(k), 20 * sizeof(float)), 0);
  EXPECT_EQ(static_cast<const float *>(dlm_tensor_data(d))[1 * 5 + 3], 4.0f); // g[0, 1] = a[1, 0]
  int64_t late[2] = {2, 2};
  EXPECT_EQ(dlm_tensor_slice_grad(g, attrs, 2, input, late), nullptr);
  dlm_attrs_free(attrs);
  for (dlm_tensor *x : {k, d, g, a})
    dlm_tensor_release(x);
}

// dlm_stack_top / dlm_stack_pop (generated code's direct calls) read what the kernels read, and
// an empty stack is the kernels' error.
TEST(CApi, StackReadsMatchTheKernels) {
  int64_t entry[2] = {1, 3};
  float a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
  dlm_tensor *x = dlm_tensor_from_data(DLM_F32, 2, entry, a),
             *y = dlm_tensor_from_data(DLM_F32, 2, entry, b);
  dlm_attrs *attrs = dlm_attrs_new();
  dlm_attrs_set_int(attrs, "rank", 2);
  dlm_tensor *s0 = nullptr, *s1 = nullptr, *s2 = nullptr;
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("stack_new"), nullptr, 0, attrs, &s0, 1, nullptr), 0)
      << dlm_last_error();
  dlm_tensor *push1[2] = {s0, x}, *push2[2] = {nullptr, y};
  int32_t push = dlm_kernel_id("stack_push");
  ASSERT_EQ(dlm_kernel_call(push, push1, 2, nullptr, &s1, 1, nullptr), 0) << dlm_last_error();
  push2[0] = s1;
  ASSERT_EQ(dlm_kernel_call(push, push2, 2, nullptr, &s2, 1, nullptr), 0) << dlm_last_error();
  dlm_tensor *top = dlm_stack_top(s2), *pop = dlm_stack_pop(s2), *kernelTop = nullptr,
             *kernelPop = nullptr;
  ASSERT_NE(top, nullptr);
  ASSERT_NE(pop, nullptr);
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("stack_top"), &s2, 1, nullptr, &kernelTop, 1, nullptr),
            0);
  ASSERT_EQ(dlm_kernel_call(dlm_kernel_id("stack_pop"), &s2, 1, nullptr, &kernelPop, 1, nullptr),
            0);
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
  for (dlm_tensor *t : {popTop, kernelPop, kernelTop, pop, top, s2, s1, s0, y, x})
    dlm_tensor_release(t);
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

/// Whether the caller holds the only reference to t: dlm_tensor_output_like hands a donor back
/// only then (an entry that kept or dropped a reference it should not would show here).
bool onlyReference(dlm_tensor *t) { return dlm_tensor_output_like(t, dlm_tensor_dtype(t), t) == t; }

/// The `kernel`'s one output for operands `ins` (through the generic call), for comparisons.
dlm_tensor *viaKernel(const char *kernel, std::initializer_list<dlm_tensor *> ins,
                      dlm_attrs *attrs = nullptr) {
  dlm_tensor *out = nullptr;
  std::vector<dlm_tensor *> v(ins);
  EXPECT_EQ(
      dlm_kernel_call(dlm_kernel_id(kernel), v.data(), (int32_t)v.size(), attrs, &out, 1, nullptr),
      0)
      << dlm_last_error();
  return out;
}

// dlm_kernel_run (codegen's generic fast path) gives the kernel's result without taking or
// leaking a reference to its operands, on success and on failure; an op with no tensor
// result is an error, not a crash.
TEST(CApi, KernelRunBorrowsItsOperands) {
  int64_t s1[2] = {2, 3}, s2[2] = {3, 2};
  float a[6] = {1, 2, 3, 4, 5, 6};
  dlm_tensor *x = dlm_tensor_from_data(DLM_F32, 2, s1, a),
             *y = dlm_tensor_from_data(DLM_F32, 2, s2, a);
  dlm_tensor *ins[2] = {x, y};
  dlm_tensor *run = dlm_kernel_run(dlm_kernel_id("matmul"), ins, 2, nullptr);
  ASSERT_NE(run, nullptr) << dlm_last_error();
  dlm_tensor *call = viaKernel("matmul", {x, y});
  ASSERT_EQ(dlm_tensor_numel(run), 4);
  EXPECT_EQ(std::memcmp(dlm_tensor_data(run), dlm_tensor_data(call), 4 * sizeof(float)), 0);
  EXPECT_TRUE(onlyReference(x));
  EXPECT_TRUE(onlyReference(y));
  EXPECT_TRUE(onlyReference(run));
  dlm_tensor *bad[2] = {x, x};
  EXPECT_EQ(dlm_kernel_run(dlm_kernel_id("matmul"), bad, 2, nullptr), nullptr);
  EXPECT_NE(std::strstr(dlm_last_error(), "cannot multiply f32[2, 3] by f32[2, 3]"), nullptr)
      << dlm_last_error();
  EXPECT_TRUE(onlyReference(x));
  dlm_tensor *n = dlm_tensor_scalar_i64(7);
  EXPECT_EQ(dlm_kernel_run(dlm_kernel_id("seed"), &n, 1, nullptr), nullptr);
  EXPECT_STREQ(dlm_last_error(), "'seed' did not produce one tensor");
  dlm_tensor *missing[2] = {x, nullptr};
  EXPECT_EQ(dlm_kernel_run(dlm_kernel_id("add"), missing, 2, nullptr), nullptr);
  EXPECT_STREQ(dlm_last_error(), "'add': null tensor operand");
  for (dlm_tensor *t : {n, call, run, y, x})
    dlm_tensor_release(t);
}

// The direct views (transpose, index with an int, reshape) are the kernels' views; an index out
// of range is the kernel's message; none takes a reference to its operand.
TEST(CApi, DirectViewsMatchTheKernels) {
  int64_t shape[3] = {2, 3, 4};
  float data[24];
  for (int i = 0; i < 24; ++i)
    data[i] = (float)i;
  dlm_tensor *x = dlm_tensor_from_data(DLM_F32, 3, shape, data);
  auto sameView = [](dlm_tensor *a, dlm_tensor *b) {
    ASSERT_NE(a, nullptr) << dlm_last_error();
    ASSERT_NE(b, nullptr);
    ASSERT_EQ(dlm_tensor_rank(a), dlm_tensor_rank(b));
    for (int d = 0; d < dlm_tensor_rank(a); ++d) {
      EXPECT_EQ(dlm_tensor_shape(a)[d], dlm_tensor_shape(b)[d]);
      EXPECT_EQ(dlm_tensor_strides(a)[d], dlm_tensor_strides(b)[d]);
    }
    EXPECT_EQ(dlm_tensor_data(a), dlm_tensor_data(b));
  };
  int64_t perm[3] = {2, 0, 1};
  dlm_attrs *tattrs = dlm_attrs_new();
  dlm_attrs_set_ints(tattrs, "perm", perm, 3);
  dlm_tensor *t = dlm_tensor_transpose(x, 3, perm), *tk = viaKernel("transpose", {x}, tattrs);
  sameView(t, tk);
  EXPECT_EQ(dlm_tensor_transpose(x, 2, perm), nullptr);
  EXPECT_NE(std::strstr(dlm_last_error(), "does not match rank 3"), nullptr) << dlm_last_error();

  dlm_tensor *i = dlm_tensor_scalar_i64(-1);
  dlm_attrs *iattrs = dlm_attrs_new();
  dlm_attrs_set_int(iattrs, "axis", 1);
  dlm_tensor *sel = dlm_tensor_select(t, 1, -1), *selk = viaKernel("index", {t, i}, iattrs);
  sameView(sel, selk);
  EXPECT_EQ(static_cast<const float *>(dlm_tensor_data(sel))[0], 12.0f); // t[:, 1] = x[1, :, :].T
  EXPECT_EQ(dlm_tensor_select(x, 0, 2), nullptr);
  EXPECT_STREQ(dlm_last_error(), "index 2 is out of range for axis 0 with size 2");
  EXPECT_EQ(dlm_tensor_select(x, 2, -5), nullptr);
  EXPECT_STREQ(dlm_last_error(), "index -5 is out of range for axis 2 with size 4");

  int64_t target[2] = {-1, 6};
  dlm_attrs *rattrs = dlm_attrs_new();
  dlm_attrs_set_ints(rattrs, "shape", target, 2);
  dlm_tensor *r = dlm_tensor_reshape(x, 2, target), *rk = viaKernel("reshape", {x}, rattrs);
  sameView(r, rk);
  dlm_tensor *rt = dlm_tensor_reshape(t, 2, target); // a permuted view: reshaped as a copy
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(static_cast<const float *>(dlm_tensor_data(rt))[1], 4.0f);
  for (dlm_tensor *v : {rt, rk, r, selk, sel, i, tk, t})
    dlm_tensor_release(v);
  EXPECT_TRUE(onlyReference(x)); // (the views gone, nothing else holds x or its memory)
  dlm_tensor_release(x);
  for (dlm_attrs *a : {tattrs, iattrs, rattrs})
    dlm_attrs_free(a);
}

TEST(CApi, StackPushMatchesTheKernel) {
  int64_t entry[2] = {1, 3};
  float a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
  dlm_tensor *x = dlm_tensor_from_data(DLM_F32, 2, entry, a),
             *y = dlm_tensor_from_data(DLM_F32, 2, entry, b);
  dlm_attrs *attrs = dlm_attrs_new();
  dlm_attrs_set_int(attrs, "rank", 2);
  dlm_tensor *s0 = viaKernel("stack_new", {}, attrs);
  dlm_tensor *s1 = dlm_stack_push(s0, x);
  ASSERT_NE(s1, nullptr) << dlm_last_error();
  dlm_tensor *s2 = dlm_stack_push(s1, y), *k2 = viaKernel("stack_push", {s1, y});
  ASSERT_NE(s2, nullptr) << dlm_last_error();
  ASSERT_EQ(dlm_tensor_rank(s2), 3);
  EXPECT_EQ(dlm_tensor_shape(s2)[0], 2);
  dlm_tensor *top = dlm_stack_top(s2), *ktop = dlm_stack_top(k2);
  EXPECT_EQ(std::memcmp(dlm_tensor_data(top), b, sizeof b), 0);
  EXPECT_EQ(std::memcmp(dlm_tensor_data(ktop), b, sizeof b), 0);
  EXPECT_EQ(dlm_stack_push(s2, s2), nullptr);
  EXPECT_STREQ(dlm_last_error(), "stack_push: a stack of rank 3 cannot hold f32[2, 1, 3]");
  dlm_attrs_free(attrs);
  for (dlm_tensor *t : {ktop, top, k2, s2, s1, s0, y, x})
    dlm_tensor_release(t);
}

// sum_to that only drops leading axes of size 1 is a copy with the kernel's exact values: its
// sum starts from zero, so -0.0 comes out as +0.0 (bits compared).
TEST(CApi, SumToCopyHasTheKernelsBits) {
  int64_t shape[2] = {1, 4}, target[1] = {4};
  float data[4] = {-0.0f, 1.5f, -2.25f, 3e-39f};
  dlm_tensor *x = dlm_tensor_from_data(DLM_F32, 2, shape, data);
  dlm_attrs *attrs = dlm_attrs_new();
  dlm_attrs_set_ints(attrs, "shape", target, 1);
  dlm_tensor *direct = dlm_tensor_sum_to(x, 1, target, attrs),
             *kernel = viaKernel("sum_to", {x}, attrs);
  ASSERT_NE(direct, nullptr) << dlm_last_error();
  ASSERT_EQ(dlm_tensor_rank(direct), 1);
  EXPECT_EQ(dlm_tensor_shape(direct)[0], 4);
  EXPECT_EQ(std::memcmp(dlm_tensor_data(direct), dlm_tensor_data(kernel), sizeof data), 0);
  EXPECT_FALSE(std::signbit(static_cast<const float *>(dlm_tensor_data(direct))[0]));
  int64_t wrong[1] = {3};
  EXPECT_EQ(dlm_tensor_sum_to(x, 1, wrong, attrs), nullptr);
  EXPECT_NE(std::strstr(dlm_last_error(), "cannot sum f32[1, 4] down to shape [3]"), nullptr)
      << dlm_last_error();
  dlm_attrs_free(attrs);
  for (dlm_tensor *t : {kernel, direct, x})
    dlm_tensor_release(t);
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
  ASSERT_EQ(dlm_kernel_call_values(dlm_kernel_id("load"), ins, 1, attrs, &out, 1, &nout), 0)
      << dlm_last_error();
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
