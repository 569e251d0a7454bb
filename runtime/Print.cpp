//===- runtime/Print.cpp - NumPy's array2string, reimplemented -----------===//
//
// A transcription of numpy/core/arrayprint.py (1.24) for the options dlm uses: FloatingFormat
// (maxprec, precision 8, sign '-'), IntegerFormat, BoolFormat, _leading_trailing,
// _formatArray and _extendLine. Float digits come from std::to_chars, whose shortest form is
// the same shortest round-trip string that Dragon4 produces in NumPy's "unique" mode; when it
// is longer than the precision, to_chars with an explicit precision gives the exact value
// rounded half-to-even, as Dragon4's cutoff does.
//
//===----------------------------------------------------------------------===//
#include "runtime/Print.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <mutex>

namespace dlm::rt {
namespace {

/// Shortest scientific digits of v: v = 0.d1d2... no: v = d1.d2d3... x 10^exp.
struct Decimal {
  bool negative = false;
  std::string digits; ///< No leading zeros (just "0" for zero).
  int exp = 0;
};

Decimal parseScientific(std::string_view s) {
  Decimal d;
  size_t i = 0;
  if (s[i] == '-') {
    d.negative = true;
    ++i;
  }
  size_t e = s.find('e');
  for (size_t k = i; k < e; ++k)
    if (s[k] != '.')
      d.digits += s[k];
  d.exp = std::atoi(std::string(s.substr(e + 1)).c_str());
  // Trailing zeros carry no information for our uses.
  while (d.digits.size() > 1 && d.digits.back() == '0')
    d.digits.pop_back();
  return d;
}

template <typename T> Decimal shortest(T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return parseScientific(std::string_view(buf, r.ptr - buf));
}

/// v in scientific notation with `prec` digits after the point, exactly rounded.
template <typename T> Decimal roundedScientific(T v, int prec) {
  char buf[128];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific, prec);
  return parseScientific(std::string_view(buf, r.ptr - buf));
}

struct Parts {
  std::string intPart; ///< With the sign.
  std::string frac;    ///< Digits after the point (may be empty).
  std::string exp;     ///< Scientific only: "-05", "+100".
};

/// dragon4_positional(x, precision, unique=True, fractional=True, trim='.').
template <typename T> Parts positional(T v, int precision) {
  Decimal d = shortest(v);
  int fracDigits = std::max<int>(0, (int)d.digits.size() - 1 - d.exp);
  Parts p;
  if (fracDigits > precision) {
    char buf[512];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, precision);
    std::string s(buf, r.ptr - buf);
    size_t dot = s.find('.');
    p.intPart = s.substr(0, dot);
    p.frac = dot == std::string::npos ? "" : s.substr(dot + 1);
    while (!p.frac.empty() && p.frac.back() == '0')
      p.frac.pop_back();
    return p;
  }
  std::string sign = d.negative ? "-" : "";
  int n = (int)d.digits.size();
  if (d.exp < 0) {
    p.intPart = sign + "0";
    p.frac = std::string(-d.exp - 1, '0') + d.digits;
  } else if (d.exp >= n - 1) {
    p.intPart = sign + d.digits + std::string(d.exp - (n - 1), '0');
  } else {
    p.intPart = sign + d.digits.substr(0, d.exp + 1);
    p.frac = d.digits.substr(d.exp + 1);
  }
  if (d.digits == "0")
    p.frac.clear();
  return p;
}

std::string exponentString(int e, int minDigits) {
  std::string digits = std::to_string(std::abs(e));
  if ((int)digits.size() < minDigits)
    digits = std::string(minDigits - digits.size(), '0') + digits;
  return (e < 0 ? "-" : "+") + digits;
}

/// dragon4_scientific(x, precision, unique=True, trim='.') with exp_digits = 2.
template <typename T> Parts scientific(T v, int precision) {
  Decimal d = shortest(v);
  if ((int)d.digits.size() - 1 > precision)
    d = roundedScientific(v, precision);
  Parts p;
  p.intPart = (d.negative ? "-" : "") + d.digits.substr(0, 1);
  p.frac = d.digits.substr(1);
  if (d.digits == "0")
    p.frac.clear();
  p.exp = exponentString(d.exp, 2);
  return p;
}

/// v in scientific notation with exactly `digits` digits after the point.
template <typename T> Parts scientificExact(T v, int digits) {
  Decimal d = roundedScientific(v, digits);
  Parts p;
  p.intPart = (d.negative ? "-" : "") + d.digits.substr(0, 1);
  p.frac = d.digits.substr(1);
  p.exp = exponentString(d.exp, 2);
  return p;
}

/// NumPy's FloatingFormat, filled from the (possibly summarised) data.
template <typename T> class FloatFormat {
public:
  explicit FloatFormat(const std::vector<T> &data) {
    std::vector<T> finite;
    for (T v : data)
      if (std::isfinite(v))
        finite.push_back(v);
    T maxVal = 0, minVal = 0;
    bool anyNonZero = false;
    for (T v : finite) {
      if (v == 0)
        continue;
      T a = std::fabs(v);
      if (!anyNonZero)
        maxVal = minVal = a;
      maxVal = std::max(maxVal, a);
      minVal = std::min(minVal, a);
      anyNonZero = true;
    }
    if (anyNonZero)
      expFormat =
          (double)maxVal >= 1e8 || (double)minVal < 0.0001 || (double)(T)(maxVal / minVal) > 1000.0;
    if (finite.empty()) {
      padLeft = padRight = 0;
      minDigits = 0;
    } else if (expFormat) {
      size_t expLen = 0, fracLen = 0;
      for (T v : finite) {
        Parts p = scientific(v, precision);
        expLen = std::max(expLen, p.exp.size());
        fracLen = std::max(fracLen, p.frac.size());
        padLeft = std::max(padLeft, (int)p.intPart.size());
      }
      expSize = (int)expLen - 1;
      precision = (int)fracLen;
      minDigits = precision;
      padRight = expSize + 2 + precision;
    } else {
      for (T v : finite) {
        Parts p = positional(v, precision);
        padLeft = std::max(padLeft, (int)p.intPart.size());
        padRight = std::max(padRight, (int)p.frac.size());
      }
      minDigits = 0;
    }
    if (finite.size() != data.size()) {
      bool negInf = false;
      for (T v : data)
        if (std::isinf(v) && v < 0)
          negInf = true;
      int offset = padRight + 1;
      padLeft = std::max({padLeft, 3 - offset, 3 + (int)negInf - offset});
    }
  }

  std::string operator()(T v) const {
    if (!std::isfinite(v)) {
      std::string ret = std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
      int pad = padLeft + padRight + 1 - (int)ret.size();
      return std::string(std::max(0, pad), ' ') + ret;
    }
    // In scientific mode every number gets `minDigits` real digits (Dragon4 keeps generating
    // exact digits past the shortest form), not zero padding.
    Parts p = expFormat ? scientificExact(v, minDigits) : positional(v, precision);
    std::string s =
        std::string(std::max(0, padLeft - (int)p.intPart.size()), ' ') + p.intPart + ".";
    if (expFormat) {
      std::string frac = p.frac;
      if ((int)frac.size() < minDigits)
        frac += std::string(minDigits - frac.size(), '0');
      int e = std::atoi(p.exp.c_str());
      return s + frac + "e" + exponentString(e, expSize);
    }
    return s + p.frac + std::string(std::max(0, padRight - (int)p.frac.size()), ' ');
  }

private:
  bool expFormat = false;
  int precision = 8;
  int minDigits = 0;
  int padLeft = 0, padRight = 0;
  int expSize = -1;
};

class IntFormat {
public:
  explicit IntFormat(const std::vector<int64_t> &data) {
    if (data.empty())
      return;
    auto [mn, mx] = std::minmax_element(data.begin(), data.end());
    width = std::max(std::to_string(*mn).size(), std::to_string(*mx).size());
  }
  std::string operator()(int64_t v) const {
    std::string s = std::to_string(v);
    return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
  }

private:
  size_t width = 0;
};

constexpr int64_t kThreshold = 1000, kEdgeItems = 3, kLineWidth = 75;

/// Per axis, the indices _leading_trailing keeps.
std::vector<std::vector<int64_t>> keptIndices(const Shape &shape, bool summarise) {
  std::vector<std::vector<int64_t>> kept(shape.size());
  for (size_t a = 0; a < shape.size(); ++a) {
    int64_t n = shape[a];
    for (int64_t i = 0; i < n; ++i)
      if (!summarise || n <= 2 * kEdgeItems || i < kEdgeItems || i >= n - kEdgeItems)
        kept[a].push_back(i);
  }
  return kept;
}

/// Elements of the summarised data (the product of the kept indices), row-major.
template <typename T>
std::vector<T> gatherKept(const Tensor &t, const std::vector<std::vector<int64_t>> &kept) {
  std::vector<T> out;
  Shape idx(t.rank(), 0);
  std::vector<size_t> pos(t.rank(), 0);
  for (auto &k : kept)
    if (k.empty())
      return out;
  const T *base = t.data<T>();
  for (;;) {
    int64_t off = 0;
    for (size_t a = 0; a < pos.size(); ++a)
      off += kept[a][pos[a]] * t.strides()[a];
    out.push_back(base[off]);
    size_t a = pos.size();
    for (;;) {
      if (a == 0)
        return out;
      --a;
      if (++pos[a] < kept[a].size())
        break;
      pos[a] = 0;
    }
  }
}

void extendLine(std::string &s, std::string &line, const std::string &word, int64_t width,
                const std::string &nextPrefix) {
  bool wrap = (int64_t)(line.size() + word.size()) > width;
  if ((int64_t)line.size() <= (int64_t)nextPrefix.size())
    wrap = false;
  if (wrap) {
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    s += line + "\n";
    line = nextPrefix;
  }
  line += word;
}

/// NumPy's _formatArray; `fmt(offset)` formats the element at a buffer offset.
template <typename Fmt> class ArrayFormatter {
public:
  ArrayFormatter(const Tensor &t, Fmt fmt, bool summarise) : t(t), fmt(fmt), summarise(summarise) {}

  std::string recurse(int64_t axis, int64_t offset, const std::string &hanging, int64_t width) {
    int64_t axesLeft = t.rank() - axis;
    if (axesLeft == 0)
      return fmt(offset);
    std::string nextHanging = hanging + " ";
    int64_t nextWidth = width - 1;
    int64_t n = t.dim(axis), stride = t.strides()[axis];
    bool showSummary = summarise && 2 * kEdgeItems < n;
    int64_t leading = showSummary ? kEdgeItems : 0;
    int64_t trailing = showSummary ? kEdgeItems : n;
    const std::string sep = ", ";
    std::string s;
    if (axesLeft == 1) {
      int64_t elemWidth = width - 1; // max(len(separator.rstrip()), len(']'))
      std::string line = hanging;
      for (int64_t i = 0; i < leading; ++i) {
        extendLine(s, line, recurse(axis + 1, offset + i * stride, nextHanging, nextWidth),
                   elemWidth, hanging);
        line += sep;
      }
      if (showSummary) {
        extendLine(s, line, "...", elemWidth, hanging);
        line += sep;
      }
      for (int64_t i = trailing; i > 1; --i) {
        extendLine(s, line, recurse(axis + 1, offset + (n - i) * stride, nextHanging, nextWidth),
                   elemWidth, hanging);
        line += sep;
      }
      extendLine(s, line, recurse(axis + 1, offset + (n - 1) * stride, nextHanging, nextWidth),
                 elemWidth, hanging);
      s += line;
    } else {
      std::string lineSep = "," + std::string(axesLeft - 1, '\n');
      for (int64_t i = 0; i < leading; ++i)
        s += hanging + recurse(axis + 1, offset + i * stride, nextHanging, nextWidth) + lineSep;
      if (showSummary)
        s += hanging + "..." + lineSep;
      for (int64_t i = trailing; i > 1; --i)
        s += hanging + recurse(axis + 1, offset + (n - i) * stride, nextHanging, nextWidth) +
             lineSep;
      s += hanging + recurse(axis + 1, offset + (n - 1) * stride, nextHanging, nextWidth);
    }
    return "[" + s.substr(hanging.size()) + "]";
  }

private:
  const Tensor &t;
  Fmt fmt;
  bool summarise;
};

template <typename Fmt>
std::string formatArray(const Tensor &t, Fmt fmt, bool summarise, std::string_view prefix) {
  ArrayFormatter<Fmt> f(t, fmt, summarise);
  std::string hanging = " " + std::string(prefix.size(), ' ');
  return f.recurse(0, 0, hanging, kLineWidth);
}

std::mutex sinkMutex;
std::function<void(std::string_view)> &sink() {
  static std::function<void(std::string_view)> s;
  return s;
}

} // namespace

std::string formatPythonFloat(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  Decimal d = shortest(v);
  std::string sign = d.negative ? "-" : "";
  if (d.exp < -4 || d.exp >= 16) {
    std::string m = d.digits.substr(0, 1);
    if (d.digits.size() > 1)
      m += "." + d.digits.substr(1);
    return sign + m + "e" + exponentString(d.exp, 2);
  }
  Parts p = positional(v, 40); // never cuts: repr keeps every shortest digit
  return p.intPart + "." + (p.frac.empty() ? "0" : p.frac);
}

std::string formatScalar(const Tensor &t) {
  check(t.numel() == 1, "formatScalar: expected one value, got " + t.typeString());
  switch (t.dtype()) {
  case DType::Bool:
    return t.itemBool() ? "True" : "False";
  case DType::I32:
  case DType::I64:
    return std::to_string(t.itemI64());
  case DType::F32:
    return formatPythonFloat((double)*t.contiguous().data<float>());
  case DType::F64:
    return formatPythonFloat(t.item());
  }
  return "?";
}

std::string arrayToString(const Tensor &tin, std::string_view prefix) {
  Tensor t = tin;
  if (t.numel() == 0)
    return "[]";
  bool summarise = t.numel() > kThreshold;
  auto kept = keptIndices(t.shape(), summarise);
  return dispatchDType(t.dtype(), [&]<typename T>() -> std::string {
    std::vector<T> data = gatherKept<T>(t, kept);
    const T *base = t.data<T>();
    if constexpr (std::is_same_v<T, bool>) {
      bool zeroD = t.rank() == 0;
      auto fmt = [&](int64_t off) -> std::string {
        return base[off] ? (zeroD ? "True" : " True") : "False";
      };
      return formatArray(t, fmt, summarise, prefix);
    } else if constexpr (std::is_integral_v<T>) {
      IntFormat f(std::vector<int64_t>(data.begin(), data.end()));
      auto fmt = [&](int64_t off) { return f((int64_t)base[off]); };
      return formatArray(t, fmt, summarise, prefix);
    } else {
      FloatFormat<T> f(data);
      auto fmt = [&](int64_t off) { return f(base[off]); };
      return formatArray(t, fmt, summarise, prefix);
    }
  });
}

std::string formatTensor(const Tensor &t) {
  std::string s = "tensor(" + arrayToString(t, "tensor(");
  if (t.dtype() != DType::F32)
    s += ", dtype=" + std::string(dtypeName(t.dtype()));
  return s + ")";
}

std::string formatPrintLine(std::span<const Value> values, const std::vector<int64_t> &isScalar) {
  std::string line;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i)
      line += " ";
    const Value &v = values[i];
    if (v.isString()) {
      line += v.str();
      continue;
    }
    const Tensor &t = v.tensor();
    bool scalar = i < isScalar.size() ? isScalar[i] != 0
                                      : isScalar.empty() && t.rank() == 0 &&
                                            (t.dtype() == DType::I64 || t.dtype() == DType::F64 ||
                                             t.dtype() == DType::Bool);
    line += scalar ? formatScalar(t) : formatTensor(t);
  }
  return line;
}

void setPrintSink(std::function<void(std::string_view)> s) {
  std::lock_guard<std::mutex> lock(sinkMutex);
  sink() = std::move(s);
}

void writeOutput(std::string_view text) {
  std::lock_guard<std::mutex> lock(sinkMutex);
  if (sink()) {
    sink()(text);
    return;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

} // namespace dlm::rt
