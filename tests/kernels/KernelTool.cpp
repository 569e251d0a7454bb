//===- tests/kernels/KernelTool.cpp - Runs kernels for numpy_check.py ---------===//
//
// Reads cases from stdin. Each case is a line "OP [name=v1,v2,... ...] NIN" (integer attribute
// lists; a single value is stored as an int) followed by NIN operands, each a line
// "dtype rank d0 d1 ..." and a line of the raw little-endian bytes in hex. For each case it
// prints "ok dtype rank d0 ..." and the result's bytes in hex, or "error MESSAGE".
//
//===----------------------------------------------------------------------===//
#include "runtime/Kernel.h"

#include <cstdio>
#include <iostream>
#include <sstream>

using namespace dlm;
using namespace dlm::rt;

namespace {
std::vector<unsigned char> fromHex(const std::string &hex) {
  std::vector<unsigned char> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back((unsigned char)std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

Attr parseAttr(const std::string &v) {
  if (v == "true" || v == "false")
    return v == "true";
  std::vector<int64_t> xs;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ','))
    xs.push_back(std::stoll(item));
  if (xs.size() == 1 && v.find(',') == std::string::npos)
    return xs[0];
  return xs;
}
} // namespace

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string op, word;
    in >> op;
    Attrs attrs;
    std::vector<std::string> words;
    while (in >> word)
      words.push_back(word);
    int nin = std::stoi(words.back());
    words.pop_back();
    for (const std::string &w : words) {
      size_t eq = w.find('=');
      attrs.set(w.substr(0, eq), parseAttr(w.substr(eq + 1)));
    }
    std::vector<Value> ins;
    for (int i = 0; i < nin; ++i) {
      std::string header, hex;
      std::getline(std::cin, header);
      std::getline(std::cin, hex);
      std::istringstream h(header);
      std::string dt;
      int rank;
      h >> dt >> rank;
      Shape shape(rank);
      for (auto &d : shape)
        h >> d;
      ins.emplace_back(Tensor::fromData(*parseDType(dt), shape, fromHex(hex).data()));
    }
    std::vector<Value> outs;
    Status s = callKernel(op, ins, attrs, outs);
    if (!s) {
      std::cout << "error " << s.message() << "\n";
      continue;
    }
    Tensor t = outs[0].tensor().contiguous();
    std::cout << "ok " << dtypeName(t.dtype()) << " " << t.rank();
    for (int64_t d : t.shape())
      std::cout << " " << d;
    std::cout << "\n";
    const unsigned char *p = static_cast<const unsigned char *>(t.rawData());
    for (int64_t i = 0; i < t.numel() * (int64_t)t.elementSize(); ++i) {
      char buf[3];
      std::snprintf(buf, sizeof buf, "%02x", p[i]);
      std::cout << buf;
    }
    std::cout << "\n";
  }
  return 0;
}
