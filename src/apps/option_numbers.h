// Numbers in command-line values, read one way for every option that checks its own
// (apps/worker_options.cpp, apps/train_job_options.cpp, apps/slidedp_generate.cpp).
#pragma once

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <string>

namespace slidedp {

/// `v` as a plain decimal number: digits with an optional fraction and exponent ("32", "0.5",
/// ".5", "1e9"), nothing before or after it; else NaN. std::stod alone would also take leading
/// blanks, a sign, hexadecimal ("0x10" = 16) and "inf"/"nan". The result is finite.
inline double plainNumber(const std::string& v) {
  if (v.empty() || !(std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '.') ||
      v.find_first_of("xXpP") != std::string::npos)
    return std::nan("");
  try {
    size_t used = 0;
    const double x = std::stod(v, &used);
    if (used == v.size() && std::isfinite(x)) return x;
  } catch (const std::exception&) {  // no digits, or out of double's range
  }
  return std::nan("");
}

/// plainNumber(v) when it lies in [lo, hi], else NaN.
inline double numberIn(const std::string& v, double lo, double hi) {
  const double x = plainNumber(v);
  return x >= lo && x <= hi ? x : std::nan("");
}

/// The check of a --seed value (CLI11 validator: "" when valid): digits only, at most
/// 2^64 - 1. CLI11's own conversion to uint64_t would take "-1" as 2^64 - 1.
inline std::string seedCheck(const std::string& v) {
  bool digits = !v.empty() && v.size() <= 20;
  for (const char c : v) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (digits && (v.size() < 20 || v <= "18446744073709551615")) return "";
  return "must be a whole number from 0 to 2^64 - 1 (digits only), e.g. 1234";
}

}  // namespace slidedp
