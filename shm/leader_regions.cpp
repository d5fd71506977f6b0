#include "shm/leader_regions.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>

#include "common/errors.h"

namespace slidedp::shm {
namespace {
constexpr uint64_t kHugePage = uint64_t{2} << 20;
}  // namespace

LeaderRegions::LeaderRegions(const Layout& layout) : layout_(layout) {
  const uint64_t bytes = layout_.totalBytes();
  if (bytes == 0) return;
  // Two huge pages more than needed: the regions start on a huge-page boundary at least a page
  // in, and the slack on both sides becomes PROT_NONE guards, so the kernel never merges the
  // regions' area with a neighbouring mapping (hugePageBytes reads exactly this area).
  const uint64_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  mapped_bytes_ = rounded + 2 * kHugePage;
  void* p = mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    mapped_bytes_ = 0;
    throwUserError("cannot map {} ({} bytes) of the leader's memory for the optimizer state "
                   "(FP32 master weights and AdamW moments): {}.\nHINT: this host lacks the "
                   "memory for the model's state; free memory, or use a smaller model or more "
                   "nodes", formatBytes(bytes), bytes, std::strerror(err));
  }
  mapping_ = p;
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  const uint64_t page = 4096;
  base_ = reinterpret_cast<char*>((at + page + kHugePage - 1) / kHugePage * kHugePage);
  char* end = static_cast<char*>(p) + mapped_bytes_;
  mprotect(p, static_cast<size_t>(base_ - static_cast<char*>(p)), PROT_NONE);
  mprotect(base_ + rounded, static_cast<size_t>(end - (base_ + rounded)), PROT_NONE);
  madvise(base_, rounded, MADV_HUGEPAGE);  // advice only
}

LeaderRegions::LeaderRegions(LeaderRegions&& o) noexcept { *this = std::move(o); }

LeaderRegions& LeaderRegions::operator=(LeaderRegions&& o) noexcept {
  if (this != &o) {
    unmap();
    layout_ = std::move(o.layout_);
    mapping_ = std::exchange(o.mapping_, nullptr);
    mapped_bytes_ = std::exchange(o.mapped_bytes_, 0);
    base_ = std::exchange(o.base_, nullptr);
    o.layout_ = Layout();
  }
  return *this;
}

LeaderRegions::~LeaderRegions() { unmap(); }

void LeaderRegions::unmap() {
  if (mapping_) munmap(mapping_, mapped_bytes_);
  mapping_ = nullptr;
  mapped_bytes_ = 0;
  base_ = nullptr;
}

uint64_t LeaderRegions::hugePageBytes() const {
  if (!mapping_) return 0;
  // Reading smaps walks the area's page tables: quick in huge pages, seconds for tens of GiB of
  // 4 KiB ones. Where THP is off there are none to count.
  std::string thp;
  std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), thp);
  if (thp.empty() || thp.find("[never]") != std::string::npos) return 0;
  std::ifstream smaps("/proc/self/smaps");
  const uintptr_t at = reinterpret_cast<uintptr_t>(mapping_);
  bool ours = false;
  uint64_t kib = 0;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2 && line.find('-') < 17) {
      ours = lo >= at && hi <= at + mapped_bytes_;  // the regions' area (the guards hold none)
      continue;
    }
    uint64_t n = 0;
    if (ours && std::sscanf(line.c_str(), "AnonHugePages: %" SCNu64 " kB", &n) == 1) kib += n;
  }
  return std::min<uint64_t>(kib << 10, bytes());  // a huge page may hold the 2 MiB rounding too
}

void* LeaderRegions::find(const std::string& name) const {
  const Region* r = base_ ? layout_.find(name) : nullptr;
  return r ? base_ + r->offset : nullptr;
}

}  // namespace slidedp::shm
