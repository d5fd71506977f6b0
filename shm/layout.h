// The layout of the shared host segment: named flat regions with byte offsets, element
// counts and dtypes. Every region starts on a kRegionAlignment (4 KiB) boundary so each can
// be registered on its own with cudaHostRegister and DMA'd without bounce buffers.
// The leader builds the layout, writes it into the segment header, and workers read it back
// from there: the header is the single source of truth once the segment exists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shm/dtype.h"

namespace slidedp::shm {

inline constexpr uint64_t kRegionAlignment = 4096;  // bytes; cudaHostRegister granularity
inline constexpr size_t kMaxRegionName = 63;         // characters, without the NUL

struct Region {
  std::string name;
  uint64_t offset = 0;  // bytes from the segment start; multiple of kRegionAlignment
  uint64_t numel = 0;   // elements
  DType dtype = DType::kU8;
  uint64_t bytes() const { return numel * dtypeSize(dtype); }
};

/// An ordered set of regions. Not thread-safe; built once by the leader.
class Layout {
 public:
  /// Appends a region after the last one, aligned to `alignment` bytes (power of two,
  /// >= kRegionAlignment). Returns its index. Throws std::invalid_argument on an empty,
  /// too long or duplicate name, a bad alignment, or a size that overflows 64 bits.
  size_t add(const std::string& name, DType dtype, uint64_t numel,
             uint64_t alignment = kRegionAlignment);

  const std::vector<Region>& regions() const { return regions_; }
  /// The region called `name`, or nullptr.
  const Region* find(const std::string& name) const;
  /// The region called `name`; throws std::out_of_range naming it if absent.
  const Region& at(const std::string& name) const;
  /// Bytes from the segment start to the end of the last region, rounded up to the
  /// alignment (the size to create the segment with).
  uint64_t totalBytes() const;

  /// A human-readable table: name, dtype, elements, bytes, offset.
  std::string toString() const;

 private:
  std::vector<Region> regions_;
  uint64_t end_ = 0;  // first byte after the last region
};

/// "1.50 GiB", "12.0 KiB", "512 B".
std::string formatBytes(uint64_t bytes);

}  // namespace slidedp::shm
