//===- examples/embed/serve.cpp - Answering requests with a trained model --===//
//
// A small server over standard input, in the shape of a C++ service that loads a TorchScript
// model: it loads classifier.dlm and a checkpoint once (libdlm's C++ layer, include/dlm/dlm.hpp),
// then answers each request line — one or more 2-d points, `x0 y0 x1 y1 ...` — with each
// point's class and class probabilities. A malformed request gets an error line and the server
// goes on.
//
//   embed_serve classifier.dlm classifier.safetensors < requests.txt
//
//===----------------------------------------------------------------------===//
#include <dlm/dlm.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// A borrowed view of `data` as a DLTensor of `shape` (row-major f32).
DLTensor viewOf(std::vector<float> &data, std::vector<int64_t> &shape) {
  DLTensor t{};
  t.data = data.data();
  t.device = {kDLCPU, 0};
  t.ndim = int32_t(shape.size());
  t.dtype = {kDLFloat, 32, 1};
  t.shape = shape.data();
  return t;
}

/// The parameters as an argument: each tensor of the loaded checkpoint handed over (a new
/// DLManagedTensor sharing its memory per call), nested as the model's ((w1, b1), (w2, b2)).
dlm::Arg paramsArg(const dlm::Result &params) {
  std::vector<dlm::Arg> layers;
  for (int32_t l = 0; l < params.size(); ++l)
    layers.push_back(
        dlm::Arg::tuple({dlm::Arg(params[l][0].tensor()), dlm::Arg(params[l][1].tensor())}));
  return dlm::Arg::tuple(std::move(layers));
}

/// Answers one request line.
void answer(const std::string &line, const dlm::Function &predict, const dlm::Result &params) {
  std::istringstream in(line);
  std::vector<float> xs;
  for (float v; in >> v;)
    xs.push_back(v);
  if (!in.eof() || xs.empty() || xs.size() % 2 != 0) {
    std::printf("error: expected pairs of numbers 'x y', got '%s'\n", line.c_str());
    return;
  }
  std::vector<int64_t> shape = {int64_t(xs.size() / 2), 2};
  dlm::Result probs = predict({paramsArg(params), dlm::Arg(viewOf(xs, shape))});
  DLManagedTensor *p = probs.tensor();
  const float *prob = static_cast<const float *>(p->dl_tensor.data);
  int64_t classes = p->dl_tensor.shape[1];
  for (int64_t i = 0; i < shape[0]; ++i) {
    const float *row = prob + i * classes;
    int64_t best = 0;
    for (int64_t c = 1; c < classes; ++c)
      best = row[c] > row[best] ? c : best;
    std::printf("(%g, %g): class %lld, probabilities", xs[2 * i], xs[2 * i + 1], (long long)best);
    for (int64_t c = 0; c < classes; ++c)
      std::printf(" %.3f", row[c]);
    std::printf("\n");
  }
  p->deleter(p);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: embed_serve CLASSIFIER.dlm CHECKPOINT.safetensors\n");
    return 2;
  }
  try {
    dlm::Module model = dlm::Module::load(argv[1]);
    dlm::Result params = model.function("load_params")({dlm::Arg(std::string(argv[2]))});
    dlm::Function predict = model.function("predict");
    std::printf("ready: %s\n", params.type().c_str());
    std::fflush(stdout);
    for (std::string line; std::getline(std::cin, line);) {
      try {
        answer(line, predict, params);
      } catch (const dlm::Error &e) {
        std::printf("error: %s", e.what());
      }
      std::fflush(stdout);
    }
  } catch (const dlm::Error &e) {
    std::fprintf(stderr, "%s", e.what());
    return 1;
  }
  return 0;
}
