#include "shm/layout.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace slidedp::shm {

size_t dtypeSize(DType t) {
  switch (t) {
    case DType::kU8: return 1;
    case DType::kF32: return 4;
    case DType::kBF16: return 2;
    case DType::kF16: return 2;
    case DType::kI32: return 4;
    case DType::kI64: return 8;
    case DType::kU64: return 8;
  }
  throw std::invalid_argument(fmt::format("unknown shm dtype value {}", static_cast<uint32_t>(t)));
}

const char* dtypeName(DType t) {
  switch (t) {
    case DType::kU8: return "u8";
    case DType::kF32: return "f32";
    case DType::kBF16: return "bf16";
    case DType::kF16: return "f16";
    case DType::kI32: return "i32";
    case DType::kI64: return "i64";
    case DType::kU64: return "u64";
  }
  return "?";
}

static uint64_t alignUp(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

size_t Layout::add(const std::string& name, DType dtype, uint64_t numel, uint64_t alignment) {
  if (name.empty() || name.size() > kMaxRegionName)
    throw std::invalid_argument(fmt::format(
        "region name '{}' must have 1..{} characters", name, kMaxRegionName));
  if (find(name) != nullptr)
    throw std::invalid_argument(fmt::format("region '{}' is already in the layout", name));
  if (alignment < kRegionAlignment || (alignment & (alignment - 1)) != 0)
    throw std::invalid_argument(fmt::format(
        "region '{}': alignment {} must be a power of two >= {}", name, alignment,
        kRegionAlignment));
  const uint64_t esize = dtypeSize(dtype);
  if (numel > std::numeric_limits<uint64_t>::max() / esize / 2)
    throw std::invalid_argument(fmt::format("region '{}': {} elements overflow", name, numel));
  Region r;
  r.name = name;
  r.dtype = dtype;
  r.numel = numel;
  r.offset = alignUp(end_, alignment);
  end_ = r.offset + r.bytes();
  regions_.push_back(r);
  return regions_.size() - 1;
}

const Region* Layout::find(const std::string& name) const {
  for (const auto& r : regions_)
    if (r.name == name) return &r;
  return nullptr;
}

const Region& Layout::at(const std::string& name) const {
  if (const Region* r = find(name)) return *r;
  throw std::out_of_range(fmt::format("no region '{}' in the segment layout", name));
}

uint64_t Layout::totalBytes() const { return alignUp(end_, kRegionAlignment); }

std::string formatBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.2f} {}", v, units[u]);
}

std::string Layout::toString() const {
  std::string s = fmt::format("{:<28} {:>5} {:>14} {:>12} {:>14}\n", "region", "dtype",
                              "elements", "bytes", "offset");
  for (const auto& r : regions_)
    s += fmt::format("{:<28} {:>5} {:>14} {:>12} {:>#14x}\n", r.name, dtypeName(r.dtype), r.numel,
                     formatBytes(r.bytes()), r.offset);
  s += fmt::format("{:<28} {:>5} {:>14} {:>12}\n", "total", "", "", formatBytes(totalBytes()));
  return s;
}

}  // namespace slidedp::shm
