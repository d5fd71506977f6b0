#include "runtime/node_shards.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "common/errors.h"

namespace slidedp {

NodeShards NodeShards::build(const ChunkPlan& plan, int num_nodes, int node) {
  if (num_nodes < 1 || node < 0 || node >= num_nodes)
    throwUserError("node {} of {} nodes is not a node", node, num_nodes);
  NodeShards s;
  s.num_nodes = num_nodes;
  s.node = node;
  s.parts.resize(plan.chunks.size());
  s.owned_numels.assign(plan.unit_numels.size(), 0);
  // Element order within each unit: the plan lists a unit's chunks by ascending begin, but do
  // not rely on it.
  std::vector<int64_t> order(plan.chunks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const Chunk &x = plan.chunks[a], &y = plan.chunks[b];
    return x.unit != y.unit ? x.unit < y.unit : x.begin < y.begin;
  });
  const Chunk* prev = nullptr;
  int64_t prev_i = -1;
  for (int64_t i : order) {
    const Chunk& c = plan.chunks[i];
    OwnedPart& p = s.parts[i];
    // The row-split embedding hands unit 0 off twice over the same ranges (dense pass, token
    // pass): both passes of a range are the same elements, stored once.
    if (prev && prev->unit == c.unit && prev->begin == c.begin) {
      SLIDEDP_ASSERT(prev->end == c.end, "two chunks of unit {} start at {} but end at {} and {}",
                     c.unit, c.begin, prev->end, c.end);
      p = s.parts[prev_i];
      continue;
    }
    const auto [b, e] = ChunkPlan::shard(c.numel(), num_nodes, node);
    p.begin = c.begin + b;
    p.end = c.begin + e;
    p.offset = s.owned_numels[c.unit];
    s.owned_numels[c.unit] += p.numel();
    prev = &c;
    prev_i = i;
  }
  return s;
}

std::vector<int> NodeShards::partCounts(const Chunk& c, int num_nodes) {
  SLIDEDP_ASSERT(c.numel() <= std::numeric_limits<int>::max(), "chunk of {} elements", c.numel());
  std::vector<int> counts(num_nodes);
  for (int p = 0; p < num_nodes; ++p) {
    const auto [b, e] = ChunkPlan::shard(c.numel(), num_nodes, p);
    counts[p] = static_cast<int>(e - b);
  }
  return counts;
}

std::vector<std::vector<std::pair<int64_t, int64_t>>> NodeShards::unitChunkRanges(const ChunkPlan& plan) {
  std::vector<std::vector<std::pair<int64_t, int64_t>>> units(plan.unit_numels.size());
  for (const Chunk& c : plan.chunks)
    if (c.pass == ChunkPass::kWhole) units[c.unit].push_back({c.begin, c.end});
  for (auto& u : units) std::sort(u.begin(), u.end());
  return units;
}

std::pair<int64_t, int64_t> NodeShards::coveringSpan(const std::vector<std::pair<int64_t, int64_t>>& chunks,
                                                     int64_t b, int64_t e) {
  int64_t first = -1, last = -1;
  for (const auto& [cb, ce] : chunks)
    if (ce > b && cb < e) {
      if (first < 0) first = cb;
      last = ce;
    }
  return first < 0 ? std::pair<int64_t, int64_t>{b, 0} : std::pair<int64_t, int64_t>{first, last - first};
}

int64_t NodeShards::gatherSpanNumel(const ChunkPlan& plan, int G, bool sharded_route) {
  const auto units = unitChunkRanges(plan);
  int64_t most = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    const int64_t n = plan.unit_numels[u];
    for (int w = 0; w < (sharded_route ? G : 1); ++w) {
      const auto [b, e] = sharded_route ? ChunkPlan::shard(n, G, w) : std::pair<int64_t, int64_t>{0, n};
      most = std::max(most, coveringSpan(units[u], b, e).second);
    }
  }
  return most;
}

uint64_t NodeShards::gatherBufferBytes(const ChunkPlan& plan, int G, bool sharded_route, int buffers,
                                       size_t element_size) {
  return static_cast<uint64_t>(G) * buffers * gatherSpanNumel(plan, G, sharded_route) * element_size;
}

}  // namespace slidedp
