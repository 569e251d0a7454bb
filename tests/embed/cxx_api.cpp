//===- tests/embed/cxx_api.cpp - The C++ layer, linked with libdlm.a -------===//
//
// include/dlm/dlm.hpp over the C API, linked statically (lib/libdlm.a): RAII handles, results
// by index, tuples of arguments, a failed call as dlm::Error with its code and diagnostic text.
// Prints the results of tests/embed/Inputs/mlp.dlm as c_api.c does, for Inputs/check_mlp.py.
// Usage: cxx_api MODEL jit|graph
//
//===----------------------------------------------------------------------===//
#include "TestTensor.h"
#include "dlm/dlm.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

using dlm_test::kHidden;
using dlm_test::kIn;
using dlm_test::kOut;
using dlm_test::Tensor;

void print(const std::string &name, const dlm::Result &r) {
  switch (r.kind()) {
  case DLM_KIND_TUPLE:
    for (int32_t i = 0; i < r.size(); ++i)
      print(name + "." + std::to_string(i), r[i]);
    return;
  case DLM_KIND_INT:
    std::printf("%s int %lld\n", name.c_str(), (long long)r.toInt());
    return;
  case DLM_KIND_FLOAT:
    std::printf("%s float %.17g\n", name.c_str(), r.toFloat());
    return;
  case DLM_KIND_BOOL:
    std::printf("%s bool %d\n", name.c_str(), int(r.toBool()));
    return;
  case DLM_KIND_TENSOR:
    break;
  default:
    std::printf("%s none\n", name.c_str());
    return;
  }
  DLManagedTensor *m = r.tensor();
  const DLTensor &t = m->dl_tensor;
  std::printf("%s f32 [", name.c_str());
  int64_t n = 1;
  std::vector<int64_t> compact(size_t(t.ndim), 1);
  for (int d = t.ndim - 1; d >= 0; --d) {
    compact[size_t(d)] = n;
    n *= t.shape[d];
  }
  for (int d = 0; d < t.ndim; ++d)
    std::printf("%s%lld", d ? ", " : "", (long long)t.shape[d]);
  std::printf("]");
  const float *base =
      reinterpret_cast<const float *>(static_cast<const char *>(t.data) + t.byte_offset);
  for (int64_t k = 0; k < n; ++k) {
    int64_t offset = 0, rest = k;
    for (int d = t.ndim - 1; d >= 0; --d) {
      offset += (rest % t.shape[d]) * (t.strides ? t.strides[d] : compact[size_t(d)]);
      rest /= t.shape[d];
    }
    std::printf(" %.9g", base[offset]);
  }
  std::printf("\n");
  m->deleter(m);
}

/// Runs `body`, which must throw dlm::Error, and prints its code and first line.
template <typename Body> void expectError(const char *what, Body &&body) {
  try {
    body();
    std::printf("error %s: none\n", what);
  } catch (const dlm::Error &e) {
    std::string message = e.what();
    std::printf("error %s: code %d: %s\n", what, e.code(),
                message.substr(0, message.find('\n')).c_str());
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cxx_api MODEL jit|graph\n");
    return 2;
  }
  try {
    dlm_options options = DLM_OPTIONS_INIT;
    options.engine = std::strcmp(argv[2], "graph") == 0 ? DLM_ENGINE_GRAPH : DLM_ENGINE_JIT;
    dlm::Module m = dlm::Module::load(argv[1], &options);
    for (const dlm::Def &d : m.defs())
      std::printf("def %s: %s (%zu params, %d required)\n", d.name.c_str(), d.signature.c_str(),
                  d.params.size(), d.required);

    Tensor w1({kIn, kHidden}, 1.0), b1({kHidden}, 2.0), w2({kHidden, kOut}, 3.0), b2({kOut}, 4.0);
    Tensor x3({3, kIn}, 5.0), x5({5, kIn}, 6.0), v({6}, 7.0);
    std::vector<int64_t> labels{2, 0, 1}, labelShape{3};
    DLTensor y3{labels.data(), {kDLCPU, 0}, 1, {kDLInt, 64, 1}, labelShape.data(), nullptr, 0};

    dlm::Function predict = m.function("predict");
    print("predict3", predict({w1.dl, b1.dl, w2.dl, b2.dl, x3.dl}));
    print("predict5", predict({w1.dl, b1.dl, w2.dl, b2.dl, x5.dl}));
    // x3 again, stored transposed: a strided view.
    Tensor xT({kIn, 3}, 0.0);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < kIn; ++j)
        xT.data[size_t(j * 3 + i)] = x3.data[size_t(i * kIn + j)];
    std::vector<int64_t> viewShape{3, kIn}, viewStrides{1, 3};
    DLTensor strided = xT.dl;
    strided.shape = viewShape.data();
    strided.strides = viewStrides.data();
    print("predict3strided", predict({w1.dl, b1.dl, w2.dl, b2.dl, strided}));

    auto params = [&] { return dlm::Arg::tuple({w1.dl, b1.dl, w2.dl, b2.dl}); };
    print("loss", m.function("loss")({params(), x3.dl, y3}));
    print("grad", m.grad("loss", {0})({params(), x3.dl, y3}));
    print("value_and_grad", m.valueAndGrad("loss")({params(), x3.dl, y3}));
    dlm::Result stepped = m.function("step")({params(), x3.dl, y3, 0.5});
    print("step", stepped);
    std::printf("step type %s\n", stepped.type().c_str());
    print("stats", m.function("stats")({v.dl, int64_t(41), 2.0, true}));
    print("transposed", m.function("transposed")({x3.dl}));

    // Handles move; a moved-from handle is empty and frees nothing.
    dlm::Function moved = std::move(predict);
    print("predict3again", moved({w1.dl, b1.dl, w2.dl, b2.dl, x3.dl}));

    expectError("x with 5 columns", [&] {
      Tensor bad({3, 5}, 8.0);
      moved({w1.dl, b1.dl, w2.dl, b2.dl, bad.dl});
    });
    expectError("three arguments", [&] { moved({w1.dl, b1.dl, w2.dl}); });
    expectError("unknown def", [&] { m.function("predcit"); });
    expectError("index out of range", [&] { m.function("pick")({v.dl, int64_t(-7)}); });
    expectError("tensor result read as an int", [&] {
      moved({w1.dl, b1.dl, w2.dl, b2.dl, x3.dl}).toInt();
    });
    expectError("syntax error", [&] { dlm::Module::fromSource("def f(x):\n    return x +\n"); });
    expectError("missing file", [&] { dlm::Module::load("/nonexistent/model.dlm"); });
  } catch (const dlm::Error &e) {
    std::fprintf(stderr, "unexpected error (code %d):\n%s", e.code(), e.what());
    return 1;
  }
  std::printf("done\n");
  return 0;
}
