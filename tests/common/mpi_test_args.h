// Shared by the MPI GoogleTest binaries of tests/runtime: their own --key=value arguments, and
// the relative error of a float array against its reference.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "common/fixtures.h"  // sharedDir

namespace slidedp::test {

/// The value of --key=value among the binary's arguments, else `dflt`.
inline std::string arg(const std::string& key, const std::string& dflt) {
  for (const auto& a : testing::internal::GetArgvs())
    if (a.rfind("--" + key + "=", 0) == 0) return a.substr(key.size() + 3);
  return dflt;
}

/// ||a - b|| / ||b|| over n floats (||a - b|| when b is all zero), accumulated in double.
inline double relErr(const float* a, const float* b, int64_t n) {
  double d = 0, r = 0;
  for (int64_t i = 0; i < n; ++i) {
    d += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    r += double(b[i]) * b[i];
  }
  return r > 0 ? std::sqrt(d / r) : std::sqrt(d);
}

}  // namespace slidedp::test
