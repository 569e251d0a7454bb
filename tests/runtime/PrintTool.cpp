//===- tests/runtime/PrintTool.cpp - Formats tensors for print_check.py ---===//
//
// Reads cases from stdin — per case a line "dtype rank d0 d1 ..." followed by the elements'
// raw little-endian bytes as one hex line — and prints each formatted tensor followed by a
// line "\x1e" (record separator), so print_check.py can compare with NumPy. Also formats
// Python scalars for lines "pyfloat <hex of a double>".
//
//===----------------------------------------------------------------------===//
#include "runtime/Print.h"

#include <cstring>
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
} // namespace

int main() {
  std::string header, hex;
  while (std::getline(std::cin, header)) {
    std::getline(std::cin, hex);
    std::istringstream in(header);
    std::string kind;
    in >> kind;
    std::vector<unsigned char> bytes = fromHex(hex);
    if (kind == "pyfloat") {
      double v;
      std::memcpy(&v, bytes.data(), 8);
      std::cout << formatPythonFloat(v) << "\n\x1e\n";
      continue;
    }
    auto dt = parseDType(kind);
    if (!dt) {
      std::cerr << "bad dtype " << kind << "\n";
      return 2;
    }
    int rank;
    in >> rank;
    Shape shape(rank);
    for (auto &d : shape)
      in >> d;
    Tensor t = Tensor::fromData(*dt, shape, bytes.data());
    std::cout << formatTensor(t) << "\n\x1e\n";
  }
  return 0;
}
