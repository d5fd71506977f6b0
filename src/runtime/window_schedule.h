// Which GPU window slot holds which unit during a step: the worker's forward, head and backward
// (worker/worker.cpp) and the step-time model that prices them (planner/cost_model.cpp) both
// follow this one schedule.
//
// Units: 0 = embedding, 1..L = decoder layers, L+1 = head (final norm, plus the LM head when
// untied). K >= 2 rotating slots: the unit being computed in one, the next one's delivery in
// another.
//
// Resident embedding (a tied model, the delivery copy whole on the node): slot K,
// one more, holds the embedding from the forward's first unit through the head, which uses it as
// the LM head, so it is delivered once a step instead of twice, and the head never waits for a
// 0.4-1.6 GB copy queued behind the last layer. The K rotating slots then hold only the layers
// and the head (norm only), and are sized for them: K * layer + embedding elements instead of
// K * embedding (more than before only where the embedding is smaller than a layer, small
// vocabularies: by one embedding). In that schedule
//   - the forward delivers layer 1 before the embedding: at a step boundary the leader updates
//     layer 1 before the embedding's token rows (they come last), so layer 1's copy is off the
//     critical path instead of queued behind the embedding's;
//   - the backward's first unit, layer L, is still in its forward slot (the head used another),
//     so it is not delivered again.
//   - host lookup (GPU workers, `host_lookup`): the forward's first unit, the lookup of the
//     step's input ids, reads its rows from the embedding's delivery copy in host memory
//     (page-locked and mapped: the GPU reads them through PCIe) instead of waiting for the
//     whole 0.4-1.6 GB copy into slot K; that copy is issued after the next layer's
//     (embeddingDeliveryUnit) and is first used by the head. At a step boundary the forward
//     then waits for layer 1 and B x T rows (Qwen3-4B at 12 x 4096: 0.25 GB) instead of layer 1
//     and the whole embedding (0.78 GB).
// Otherwise (untied, or the copy sharded across nodes) unit u's forward slot is
// u mod K, the tied head delivers the embedding into the slot after its own, and the backward
// rotation starts two slots after the head's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/chunk_plan.h"

namespace slidedp {

struct WindowSchedule {
  int K = 2;              // rotating slots
  int L = 1;              // decoder layers
  bool resident = false;  // the embedding stays in slot K from the forward through the head
  bool host_lookup = false;  // with `resident`: the forward's lookup reads host memory (above)

  /// Slots in all (the window's tensors): K, plus the resident one.
  int slots() const { return K + (resident ? 1 : 0); }
  int headUnit() const { return L + 1; }
  /// The slot unit u (0..L+1) is delivered to in the forward (the head's included).
  int forwardSlot(int u) const {
    if (resident) return u == 0 ? K : (u - 1) % K;
    return u % K;
  }
  /// Tied models: the slot the head reads the embedding from, and whether the head delivers it
  /// there (false: it is still there from the forward).
  int headEmbeddingSlot() const { return resident ? K : (forwardSlot(headUnit()) + 1) % K; }
  bool headDeliversEmbedding() const { return !resident; }
  /// The slot decoder unit u (L..1) is in for its backward, and whether the backward's first
  /// unit L is delivered again (false: still in its forward slot).
  int backwardSlot(int u) const {
    if (resident) return (u - 1) % K;
    return (forwardSlot(headUnit()) + 2 + (L - u)) % K;
  }
  bool backwardDeliversFirst() const { return !resident; }
  /// Whether the forward delivers layer 1 before the embedding (see above).
  bool layerOneFirst() const { return resident && L >= 1; }
  /// Whether the forward's lookup reads the embedding's rows from host memory (see above).
  bool lookupFromHost() const { return resident && host_lookup && L >= 1; }
  /// The forward unit during which the embedding is delivered to its forward slot, after that
  /// unit's own delivery of the next unit: 1 with the host lookup, else -1 (before the forward,
  /// after layer 1's delivery when layerOneFirst()).
  int embeddingDeliveryUnit() const { return lookupFromHost() ? 1 : -1; }
  /// Elements of a rotating slot and of the resident one (0: none) for units of these sizes
  /// (index 0 = the embedding) on G workers: a slot holds the most of max(n, G * shard) over
  /// its units (a sharded route gathers G equal shards).
  std::pair<int64_t, int64_t> slotNumels(const std::vector<int64_t>& unit_numels, int G) const {
    int64_t rotating = 0, resident_n = 0;
    for (size_t i = 0; i < unit_numels.size(); ++i) {
      const int64_t n = unit_numels[i];
      int64_t& size = resident && i == 0 ? resident_n : rotating;
      size = std::max(size, std::max(n, G * ChunkPlan::shardNumel(n, G)));
    }
    return {rotating, resident_n};
  }
};

}  // namespace slidedp
