// bfloat16 <-> float conversions, scalar reference, shared by the checkpoint formats
// (formats/dtype.h) and the host optimizer (optim/: the SIMD kernels in adamw_avx2.cpp and
// adamw_avx512.cpp implement the same bit-level rule vector-wide and are tested against this).
//
// Design decision: round-to-nearest-even on the raw bits (as c10::BFloat16 and
// llm.c do), NaN kept NaN and made quiet (the same result as the AVX-512 BF16 instruction
// VCVTNEPS2BF16), fp32 denormals rounded to bf16 denormals (the native instruction instead
// flushes them to signed zero; see Isa::kAvx512Bf16 in adamw.h).
#pragma once

#include <cstdint>
#include <cstring>

namespace slidedp {

/// bf16 bits -> float (exact: bf16 is the upper half of an fp32).
inline float bf16ToFloat(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// float -> bf16 bits, round to nearest, ties to even. NaN -> quiet NaN with the same sign
/// and top payload bits (bit 6 of the bf16, i.e. fp32 bit 22, is set); +-Inf -> +-Inf;
/// finite values that round above the bf16 maximum -> +-Inf (IEEE overflow under RNE).
inline uint16_t floatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

}  // namespace slidedp

namespace slidedp::optim {
using slidedp::bf16ToFloat;
using slidedp::floatToBf16;
}  // namespace slidedp::optim
