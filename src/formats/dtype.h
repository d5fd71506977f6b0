// Element types of safetensors files and the scalar conversions between them.
// Design decision: conversions are plain scalar loops with bit-exact IEEE semantics
// (bf16 and f16 rounding to nearest even, NaN kept quiet, subnormals handled), because they
// run once per checkpoint load/save; the hot-path bf16 copy lives in src/optim.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/bf16.h"
#include <string>

namespace slidedp::formats {

/// The safetensors dtypes slidedp reads and writes. Anything else ("F64", "I8", "F8_E4M3",
/// ...) is refused at open() with the file and tensor named.
enum class DType { F32, F16, BF16, I64, I32 };

/// The safetensors spelling ("F32", "F16", "BF16", "I64", "I32").
const char* dtypeName(DType dtype);

/// Bytes per element (4, 2, 2, 8, 4).
size_t dtypeSize(DType dtype);

/// Parses a safetensors dtype string; returns false when it is not one of DType.
bool parseDType(const std::string& name, DType* out);

/// True for F32, F16, BF16 (the types readFloat32 converts).
bool isFloating(DType dtype);

/// bf16 <-> fp32 (round to nearest even; NaN stays a quiet NaN): one definition for the
/// whole project, in common/bf16.h.
using slidedp::bf16ToFloat;
using slidedp::floatToBf16;

/// IEEE binary16 bits -> fp32 (exact, subnormals included).
float f16ToFloat(uint16_t bits);

/// fp32 -> IEEE binary16 bits, round to nearest even, overflow to inf, NaN kept.
uint16_t floatToF16(float f);

/// Converts n elements of `src` (dtype `from`, possibly unaligned) to fp32 in `out`.
/// Only floating dtypes; throws UserError for integer dtypes.
void convertToFloat32(DType from, const void* src, size_t n, float* out);

/// Converts n fp32 values to `to` (F32, BF16 or F16) into `dst` (possibly unaligned).
void convertFromFloat32(const float* src, size_t n, DType to, void* dst);

}  // namespace slidedp::formats
