#include "runtime/host_memory.h"

#include <algorithm>
#include <vector>
#include <fstream>
#include <sstream>

#include "common/errors.h"
#include "runtime/accumulation_passes.h"
#include "shm/layout.h"

namespace slidedp {

std::string HostMemoryNeed::describe() const {
  return fmt::format("{} bytes = {} (host state {} + gradient staging ring {} + pinned activation "
                     "offload {} + per-token host buffers {}{}{}{})",
                     total(), shm::formatBytes(total()), shm::formatBytes(segment_bytes - staging_bytes),
                     shm::formatBytes(staging_bytes),
                     shm::formatBytes(offload_bytes), shm::formatBytes(token_bytes),
                     checkpoint_staging_bytes > 0
                         ? " + checkpoint staging " + shm::formatBytes(checkpoint_staging_bytes)
                         : std::string(),
                     gather_bytes > 0 ? " + the workers' gather buffers " + shm::formatBytes(gather_bytes)
                                      : std::string(),
                     checkpoint_io_bytes > 0
                         ? " + checkpoint write buffers " + shm::formatBytes(checkpoint_io_bytes)
                         : std::string());
}

uint64_t powerOf2Ceil(uint64_t n) {
  uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

HostMemoryNeed estimateHostMemory(const HostStateLayout& state, int ranks, int64_t B, int64_t T,
                                  int64_t C, int64_t L, bool offload, int64_t micro_batch_rows,
                                  int64_t accumulation_steps) {
  HostMemoryNeed n;
  n.segment_bytes = state.layout.totalBytes();
  for (const auto& r : state.layout.regions())
    if (r.name == kStagingRegion) n.staging_bytes = r.bytes();
  const uint64_t tokens = static_cast<uint64_t>(B) * static_cast<uint64_t>(T);
  if (offload) {
    const int64_t G = std::max(1, ranks - 1);
    for (int64_t w = 0; w < G; ++w) {  // rows split as rowsForWorker does: the first B % G get one more
      // One accumulation step's rows at a time: passes of equal rows reuse one set of
      // buffers; when they differ by a row, both sizes are held (the pool reuses exact sizes).
      const int64_t worker_rows = B / G + (w < B % G ? 1 : 0);
      const int64_t N = std::clamp<int64_t>(accumulation_steps, 1, std::max<int64_t>(1, worker_rows));
      for (const int64_t rows : passSizes(worker_rows, N)) {
        const int64_t mb = micro_batch_rows > 0 ? micro_batch_rows : rows;
        for (int64_t r0 = 0; r0 < rows; r0 += mb) {
          const uint64_t bytes = static_cast<uint64_t>(std::min(mb, rows - r0)) *
                                 static_cast<uint64_t>(T) * static_cast<uint64_t>(C) * 2;
          n.offload_bytes += static_cast<uint64_t>(L) * ((bytes + 4095) / 4096 * 4096);  // pinned_pool.h
        }
      }
    }
  }
  n.token_bytes = 3 * 8 * tokens * static_cast<uint64_t>(ranks + 1);
  return n;
}

namespace {

/// A "Key:   N kB" line of /proc/meminfo in bytes; 0 when missing.
uint64_t meminfoBytes(const std::string& key) {
  std::ifstream f("/proc/meminfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream in(line.substr(key.size() + 1));
    uint64_t kib = 0;
    if (in >> kib) return kib * 1024;
  }
  return 0;
}

}  // namespace

uint64_t memAvailableBytes() { return meminfoBytes("MemAvailable"); }

uint64_t memTotalBytes() { return meminfoBytes("MemTotal"); }

void checkHostMemory(const HostMemoryNeed& need, uint64_t available) {
  if (available == 0 || need.total() <= available) return;
  // What to change, the parts that can shrink first: a part under 10% of the need would not
  // make room, so its flag is not suggested.
  const auto large = [&](uint64_t part) { return part * 10 > need.total(); };
  std::string hint;
  if (large(need.staging_bytes))
    hint += fmt::format("a smaller --chunk-numel or --ring-slots (the gradient staging ring takes {}), ",
                        shm::formatBytes(need.staging_bytes));
  if (need.checkpoint_staging_bytes > 0)
    hint += "a smaller --checkpoint-staging (or auto, which takes what is free), ";
  if (need.checkpoint_io_bytes > 0)
    hint += "--checkpoint-io buffered (writes through the page cache, no write buffers), ";
  if (need.offload_bytes > 0)
    hint += "drop --offload-activations (recompute keeps only what fits on the GPU), ";
  if (large(need.token_bytes) || large(need.offload_bytes))
    hint += "fewer tokens per step (--batch-size, --seq-len), ";
  throwUserError(
      "the job needs {} of host RAM, but only {} bytes = {} are available (MemAvailable); it would be "
      "killed by the kernel's OOM killer part way through start-up.\nHINT: {}{}a machine with more memory",
      need.describe(), available, shm::formatBytes(available), hint, hint.empty() ? "" : "or ");
}

}  // namespace slidedp
