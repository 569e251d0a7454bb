//===- tests/embed/stress.cpp - Many threads calling one dlm_function ------===//
//
// THREADS threads start together and call the same dlm_function (Inputs/mlp.dlm's predict)
// ITERATIONS times each, with batch sizes 1 to 4 and 7 in turn — so the first calls of each
// new argument type race to compile it, and later ones run the compiled code side by side —
// checking every result against the model computed here in double precision. Every fifth call
// also makes and frees a function handle of its own, and every seventh is a bad call (a
// wrong shape) that must fail with its status. A grad function is called alongside.
// tests/embed/stress.test runs it. Exits 1 on the first wrong result or status.
// Usage: stress MODEL jit|graph THREADS ITERATIONS
//
//===----------------------------------------------------------------------===//
#include "TestTensor.h"
#include "dlm/dlm.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using dlm_test::kHidden;
using dlm_test::kIn;
using dlm_test::kOut;
using dlm_test::Tensor;

std::atomic<int> failures{0};

void fail(const char *what, dlm_status *s) {
  if (failures++ == 0)
    std::fprintf(stderr, "%s%s%s\n", what, s ? ":\n" : "", s ? dlm_status_message(s) : "");
  dlm_status_free(s);
}

/// relu(x @ w1 + b1) @ w2 + b2 in double precision.
std::vector<double> reference(const Tensor &w1, const Tensor &b1, const Tensor &w2,
                              const Tensor &b2, const Tensor &x) {
  int64_t rows = x.shape[0];
  std::vector<double> out;
  for (int64_t r = 0; r < rows; ++r) {
    double h[kHidden];
    for (int64_t j = 0; j < kHidden; ++j) {
      double s = b1.data[size_t(j)];
      for (int64_t k = 0; k < kIn; ++k)
        s += double(x.data[size_t(r * kIn + k)]) * w1.data[size_t(k * kHidden + j)];
      h[j] = s > 0 ? s : 0;
    }
    for (int64_t o = 0; o < kOut; ++o) {
      double s = b2.data[size_t(o)];
      for (int64_t j = 0; j < kHidden; ++j)
        s += h[j] * w2.data[size_t(j * kOut + o)];
      out.push_back(s);
    }
  }
  return out;
}

bool matches(const DLManagedTensor *m, const std::vector<double> &want) {
  const DLTensor &t = m->dl_tensor;
  if (t.ndim != 2 || t.shape[1] != kOut || size_t(t.shape[0] * kOut) != want.size())
    return false;
  const float *p =
      reinterpret_cast<const float *>(static_cast<const char *>(t.data) + t.byte_offset);
  for (size_t i = 0; i < want.size(); ++i)
    if (std::fabs(p[i] - want[i]) > 1e-5 + 1e-5 * std::fabs(want[i]))
      return false;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: stress MODEL jit|graph THREADS ITERATIONS\n");
    return 2;
  }
  dlm_options options = DLM_OPTIONS_INIT;
  options.engine = std::strcmp(argv[2], "graph") == 0 ? DLM_ENGINE_GRAPH : DLM_ENGINE_JIT;
  int threads = std::atoi(argv[3]), iterations = std::atoi(argv[4]);
  dlm_module *m = nullptr;
  dlm_function *predict = nullptr, *grad = nullptr;
  if (dlm_status *s = dlm_module_load(argv[1], &options, &m)) {
    fail("load", s);
    return 1;
  }
  if (dlm_status *s = dlm_module_function(m, "predict", &predict)) {
    fail("function", s);
    return 1;
  }
  if (dlm_status *s = dlm_module_grad(m, "loss", nullptr, 0, 0, &grad)) {
    fail("grad", s);
    return 1;
  }
  Tensor w1({kIn, kHidden}, 1.0), b1({kHidden}, 2.0), w2({kHidden, kOut}, 3.0), b2({kOut}, 4.0);
  const int64_t batches[] = {1, 2, 3, 4, 7};
  std::vector<Tensor> xs;
  std::vector<std::vector<double>> want;
  for (int64_t rows : batches) {
    xs.emplace_back(std::vector<int64_t>{rows, kIn}, double(rows));
    want.push_back(reference(w1, b1, w2, b2, xs.back()));
  }
  Tensor bad({2, 5}, 9.0);
  std::vector<int64_t> labels{0, 1, 2}, labelShape{3};
  DLTensor y{labels.data(), {kDLCPU, 0}, 1, {kDLInt, 64, 1}, labelShape.data(), nullptr, 0};

  std::atomic<int> ready{0};
  std::atomic<long> calls{0};
  auto worker = [&](int id) {
    ready++;
    while (ready.load() < threads) {
    }
    for (int i = 0; i < iterations && failures.load() == 0; ++i) {
      size_t b = size_t(id + i) % xs.size();
      dlm_function *f = predict;
      if (i % 5 == 4 && dlm_module_function(m, "predict", &f) != nullptr) {
        fail("a thread's own function", nullptr);
        return;
      }
      dlm_arg args[5] = {dlm_arg_tensor(&w1.dl), dlm_arg_tensor(&b1.dl), dlm_arg_tensor(&w2.dl),
                         dlm_arg_tensor(&b2.dl), dlm_arg_tensor(&xs[b].dl)};
      dlm_result *r = nullptr;
      if (dlm_status *s = dlm_call(f, args, 5, &r))
        return fail("predict", s);
      DLManagedTensor *out = nullptr;
      if (dlm_status *s = dlm_result_tensor(r, &out))
        return fail("result", s);
      if (!matches(out, want[b]))
        fail("a wrong prediction", nullptr);
      out->deleter(out);
      dlm_status_free(dlm_result_free(r));
      if (f != predict)
        dlm_status_free(dlm_function_free(f));
      if (i % 7 == 6) {
        args[4] = dlm_arg_tensor(&bad.dl);
        dlm_status *s = dlm_call(predict, args, 5, &r);
        if (dlm_status_code(s) != DLM_ERROR_COMPILE)
          return fail("a bad call that did not fail", s);
        dlm_status_free(s);
      }
      if (i % 11 == 10) {
        dlm_arg params[4] = {args[0], args[1], args[2], args[3]};
        dlm_arg la[3] = {dlm_arg_tuple(params, 4), dlm_arg_tensor(&xs[2].dl), dlm_arg_tensor(&y)};
        if (dlm_status *s = dlm_call(grad, la, 3, &r))
          return fail("grad", s);
        dlm_status_free(dlm_result_free(r));
      }
      calls++;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(worker, t);
  for (std::thread &t : pool)
    t.join();
  dlm_status_free(dlm_function_free(predict));
  dlm_status_free(dlm_function_free(grad));
  dlm_status_free(dlm_module_free(m));
  if (failures.load())
    return 1;
  std::printf("%ld calls on %d threads agree\n", calls.load(), threads);
  return 0;
}
