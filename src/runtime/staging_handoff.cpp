#include "runtime/staging_handoff.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace slidedp {

static float expectedValue(int round, int worker, uint64_t i) {
  return static_cast<float>(round * 100 + worker * 10 + static_cast<int>(i % 7));
}

HandoffStats runStagingHandoff(const RankContext& ctx, const shm::Segment& seg,
                               const HostStateSpec& spec, const HostStateLayout& state,
                               int rounds, double timeout_s) {
  const shm::ControlBlock& cb = seg.control();
  const int G = spec.num_workers, S = spec.num_slots;
  const uint64_t n = std::min<uint64_t>(spec.chunk_numel, state.param_region_numel);
  const uint64_t span = state.param_region_numel - n + 1;
  float* staging = seg.regionAs<float>(kStagingRegion);
  float* master = seg.regionAs<float>(kMasterRegion);
  const std::string me = ctx.describe();
  const auto t0 = std::chrono::steady_clock::now();
  auto masterOffset = [&](int k) { return (static_cast<uint64_t>(k) * n) % span; };

  if (ctx.isLeader()) {
    for (int k = 0; k < rounds; ++k) {
      const int slot = k % S;
      const uint64_t use = static_cast<uint64_t>(k / S);
      float* dst = master + masterOffset(k);
      std::fill(dst, dst + n, 0.0f);
      for (int w = 0; w < G; ++w) {
        cb.waitAtLeast(cb.chunkReady(slot, w + 1), use + 1, timeout_s, me, [&] {
          return fmt::format("chunk_ready[slot {}][local rank {}] (round {})", slot, w + 1, k);
        });
        const float* src = staging + HostStateLayout::stagingOffset(spec, slot, w);
        for (uint64_t i = 0; i < n; ++i) {
          if (src[i] != expectedValue(k, w, i))
            throw std::runtime_error(fmt::format(
                "staging hand-off: round {} worker {} element {} is {} (expected {})", k, w, i,
                src[i], expectedValue(k, w, i)));
          dst[i] += src[i];
        }
      }
      for (int w = 0; w < G; ++w) cb.chunkConsumed(slot, w + 1).store(use + 1);
      cb.layerVersion(static_cast<uint32_t>(k % cb.numLayers())).add(1);
    }
  } else {
    const int w = ctx.local_rank - 1;
    for (int k = 0; k < rounds; ++k) {
      const int slot = k % S;
      const uint64_t use = static_cast<uint64_t>(k / S);
      // The ring is bounded: wait until the leader released this slot's previous use.
      cb.waitAtLeast(cb.chunkConsumed(slot, ctx.local_rank), use, timeout_s, me, [&] {
        return fmt::format("chunk_consumed[slot {}][local rank {}] (round {})", slot,
                           ctx.local_rank, k);
      });
      float* dst = staging + HostStateLayout::stagingOffset(spec, slot, w);
      for (uint64_t i = 0; i < n; ++i) dst[i] = expectedValue(k, w, i);
      cb.chunkReady(slot, ctx.local_rank).store(use + 1);  // release: publishes dst
    }
    // Read back the leader's sum of the last round once its layer version says it is there.
    const int last = rounds - 1;
    if (last >= 0) {
      const uint32_t layer = static_cast<uint32_t>(last % cb.numLayers());
      const uint64_t bumps = static_cast<uint64_t>(last / cb.numLayers()) + 1;
      cb.waitAtLeast(cb.layerVersion(layer), bumps, timeout_s, me,
                     [&] { return fmt::format("layer_version[{}]", layer); });
      const float* sum = master + masterOffset(last);
      for (uint64_t i = 0; i < n; ++i) {
        float want = 0;
        for (int v = 0; v < G; ++v) want += expectedValue(last, v, i);
        if (sum[i] != want)
          throw std::runtime_error(fmt::format(
              "staging hand-off: leader's sum at element {} is {} (expected {})", i, sum[i], want));
      }
    }
  }
  HandoffStats st;
  st.rounds = static_cast<uint64_t>(rounds);
  st.elements_per_chunk = n;
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

}  // namespace slidedp
