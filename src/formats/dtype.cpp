// Scalar dtype conversions for checkpoint I/O (see dtype.h).
#include "formats/dtype.h"

#include <cstring>

#include "common/errors.h"

namespace slidedp::formats {

const char* dtypeName(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return "F32";
    case DType::F16:
      return "F16";
    case DType::BF16:
      return "BF16";
    case DType::I64:
      return "I64";
    case DType::I32:
      return "I32";
  }
  return "?";
}

size_t dtypeSize(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return 4;
    case DType::F16:
      return 2;
    case DType::BF16:
      return 2;
    case DType::I64:
      return 8;
    case DType::I32:
      return 4;
  }
  return 0;
}

bool parseDType(const std::string& name, DType* out) {
  static const struct {
    const char* name;
    DType dtype;
  } kTable[] = {{"F32", DType::F32},
                {"F16", DType::F16},
                {"BF16", DType::BF16},
                {"I64", DType::I64},
                {"I32", DType::I32}};
  for (const auto& e : kTable) {
    if (name == e.name) {
      *out = e.dtype;
      return true;
    }
  }
  return false;
}

bool isFloating(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
}

float f16ToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t u;
  if (exp == 0) {
    if (mant == 0) {
      u = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      mant &= 0x3ffu;
      u = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    u = sign | 0x7f800000u | (mant << 13);
  } else {
    u = sign | ((exp + (127 - 15)) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t floatToF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t absu = u & 0x7fffffffu;
  if (absu > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((absu >> 13) & 0x3ffu));
  if (absu >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (absu < 0x38800000u) {  // result is subnormal or zero (|f| < 2^-14)
    if (absu < 0x33000000u) return static_cast<uint16_t>(sign);  // < 2^-25 rounds to 0
    uint32_t exp = absu >> 23;
    uint32_t mant = (absu & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - exp;  // 14 + (113 - exp) - 1 ... shifting mantissa into place
    // value = mant * 2^(exp-150); subnormal unit = 2^-24 -> q = mant * 2^(exp-126)
    uint32_t q = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return static_cast<uint16_t>(sign | q);
  }
  uint32_t r = absu + 0xfffu + ((absu >> 13) & 1u);  // round to nearest even at bit 13
  r -= (127u - 15u) << 23;
  return static_cast<uint16_t>(sign | (r >> 13));
}

void convertToFloat32(DType from, const void* src, size_t n, float* out) {
  const auto* p = static_cast<const uint8_t*>(src);
  switch (from) {
    case DType::F32:
      std::memcpy(out, p, n * 4);
      return;
    case DType::BF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t b;
        std::memcpy(&b, p + 2 * i, 2);
        out[i] = bf16ToFloat(b);
      }
      return;
    case DType::F16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t b;
        std::memcpy(&b, p + 2 * i, 2);
        out[i] = f16ToFloat(b);
      }
      return;
    default:
      throwUserError(
          "cannot convert dtype {} to F32: only F32, F16 and BF16 tensors hold "
          "parameters",
          dtypeName(from));
  }
}

void convertFromFloat32(const float* src, size_t n, DType to, void* dst) {
  auto* p = static_cast<uint8_t*>(dst);
  switch (to) {
    case DType::F32:
      std::memcpy(p, src, n * 4);
      return;
    case DType::BF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t b = floatToBf16(src[i]);
        std::memcpy(p + 2 * i, &b, 2);
      }
      return;
    case DType::F16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t b = floatToF16(src[i]);
        std::memcpy(p + 2 * i, &b, 2);
      }
      return;
    default:
      throwUserError(
          "cannot convert F32 to dtype {}: parameters are written as F32, F16 or "
          "BF16",
          dtypeName(to));
  }
}

}  // namespace slidedp::formats
