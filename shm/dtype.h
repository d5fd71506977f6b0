// Element types of the regions of the shared segment. Plain enum with fixed values: the
// value is stored in the segment header, so it is part of the on-segment format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace slidedp::shm {

enum class DType : uint32_t { kU8 = 1, kF32 = 2, kBF16 = 3, kF16 = 4, kI32 = 5, kI64 = 6, kU64 = 7 };

/// Bytes per element; throws std::invalid_argument for an unknown value.
size_t dtypeSize(DType t);
/// "f32", "bf16", ...; "?" for an unknown value.
const char* dtypeName(DType t);

}  // namespace slidedp::shm
