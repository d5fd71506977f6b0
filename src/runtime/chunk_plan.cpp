#include "runtime/chunk_plan.h"

#include <algorithm>

#include "common/errors.h"

namespace slidedp {

ChunkPlan ChunkPlan::build(const std::vector<int64_t>& unit_numels, int64_t chunk_numel,
                           bool split_embedding) {
  if (chunk_numel < 1) throwUserError("chunk_numel must be >= 1 element, got {}", chunk_numel);
  if (unit_numels.size() < 2) throwUserError("a model needs at least an embedding and a head unit");
  ChunkPlan p;
  p.unit_numels = unit_numels;
  p.chunk_numel = chunk_numel;
  p.split_embedding = split_embedding;
  auto add = [&](int u, ChunkPass pass) {
    const int64_t n = unit_numels[u];
    if (n < 1) throwUserError("unit {} has no parameters", u);
    for (int64_t b = 0; b < n; b += chunk_numel) {
      const int64_t e = std::min(n, b + chunk_numel);
      p.chunks.push_back({u, b, e, e == n && pass != ChunkPass::kEmbeddingDense, pass});
    }
  };
  for (int u : p.unitOrder()) {
    if (u == 0 && split_embedding) {
      add(0, ChunkPass::kEmbeddingTokens);
      continue;
    }
    add(u, ChunkPass::kWhole);
    if (split_embedding && u == static_cast<int>(unit_numels.size()) - 1) add(0, ChunkPass::kEmbeddingDense);
  }
  return p;
}

std::vector<int> ChunkPlan::unitOrder() const {
  std::vector<int> order;
  for (int u = static_cast<int>(unit_numels.size()) - 1; u >= 0; --u) order.push_back(u);
  return order;
}

int64_t ChunkPlan::shardNumel(int64_t n, int G) {
  const int64_t per = (n + G - 1) / G;
  return (per + kShardAlignElems - 1) / kShardAlignElems * kShardAlignElems;
}

std::pair<int64_t, int64_t> ChunkPlan::shard(int64_t n, int G, int w) {
  const int64_t per = shardNumel(n, G);
  return {std::min(n, w * per), std::min(n, (w + 1) * per)};
}

}  // namespace slidedp
