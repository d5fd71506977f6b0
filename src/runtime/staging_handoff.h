// A self-check of the per-chunk hot path: workers fill staging-ring slots and publish them
// with their ready counters; the leader waits for every worker's contribution to a chunk,
// sums it into the master region, releases the slot (consumed counters) and bumps a layer
// version; workers finally read back the leader's sums. It exercises the same counters,
// ring reuse and acquire/release hand-off the training pipeline uses, and verifies every
// element exactly (small integers are exact in fp32).
#pragma once

#include <cstdint>

#include "runtime/host_state_layout.h"
#include "runtime/rank_context.h"
#include "shm/segment.h"

namespace slidedp {

struct HandoffStats {
  uint64_t rounds = 0;
  uint64_t elements_per_chunk = 0;
  double seconds = 0;
};

/// Collective over the node's ranks (leader and workers call it with the same arguments).
/// Throws std::runtime_error on a wrong element (naming round, worker and index),
/// TimeoutError / JobAbortedError from the waits.
HandoffStats runStagingHandoff(const RankContext& ctx, const shm::Segment& seg,
                               const HostStateSpec& spec, const HostStateLayout& state,
                               int rounds, double timeout_s);

}  // namespace slidedp
