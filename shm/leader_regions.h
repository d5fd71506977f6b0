// Regions of the host state that only the node's leader reads and writes (with GPU workers:
// the FP32 master weights and the two AdamW moments, 12 of the 14 bytes a parameter), held in
// the leader's own memory instead of the shared segment. /dev/shm is tmpfs, whose pages are
// 4 KiB unless the administrator enabled huge pages there (shmem_enabled / huge=, "never" by
// default); the process's own memory gets transparent huge pages (MADV_HUGEPAGE, THP
// "madvise" or "always"). The AdamW pass streams these arrays once a step, and with 4 KiB
// pages every 4 KiB of every stream costs a TLB miss, two-level under a hypervisor: on an
// H100 host (KVM, 14 threads, 1 G parameters; tools/bench/results/2026-12-07c-session18/call3)
// `bench_adamw --memory anon` updated 4.75-4.78 Gparam/s against 4.43-4.56 with `--memory shm`.
//
// Not shared: a worker never sees these regions (Segment::region throws for them there), so a
// region the workers read (a delivery copy, the staging ring, fp32 compute's master) stays in
// the segment. Zero-filled, as a new segment is; pages come at first touch.
#pragma once

#include <cstdint>
#include <string>

#include "shm/layout.h"

namespace slidedp::shm {

class LeaderRegions {
 public:
  LeaderRegions() = default;
  /// Maps `layout`'s regions in one anonymous private mapping aligned to 2 MiB, advised for
  /// transparent huge pages (where the kernel refuses the advice they stay 4 KiB pages: the
  /// regions are the same, only the TLB differs). An empty layout maps nothing. Throws
  /// UserError (with the bytes and a HINT) when the memory cannot be mapped.
  explicit LeaderRegions(const Layout& layout);
  LeaderRegions(LeaderRegions&&) noexcept;
  LeaderRegions& operator=(LeaderRegions&&) noexcept;
  LeaderRegions(const LeaderRegions&) = delete;
  LeaderRegions& operator=(const LeaderRegions&) = delete;
  ~LeaderRegions();

  /// Start of region `name`, or nullptr when it is not one of these.
  void* find(const std::string& name) const;
  /// Bytes mapped for the regions (their layout's total; 0 when none).
  uint64_t bytes() const { return layout_.totalBytes(); }
  /// Bytes of the regions backed by transparent huge pages now (/proc/self/smaps'
  /// AnonHugePages of their area; pages exist once touched); 0 when none, unreadable, or THP
  /// is off on this host (then not walked: seconds for tens of GiB of 4 KiB pages).
  uint64_t hugePageBytes() const;

 private:
  void unmap();
  Layout layout_;
  void* mapping_ = nullptr;  // what mmap returned (mapped_bytes_ long, PROT_NONE around the regions)
  uint64_t mapped_bytes_ = 0;
  char* base_ = nullptr;     // 2 MiB-aligned start of the regions
};

}  // namespace slidedp::shm
