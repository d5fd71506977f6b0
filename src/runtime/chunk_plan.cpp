#include "runtime/chunk_plan.h"

#include <algorithm>

#include "common/errors.h"

namespace slidedp {

namespace {

// The split of unit u of `numel` elements, or 0 for one bucket. The embedding (unit 0) is never
// bucketed: its passes are row ranges, and its lookup gradient comes last.
int64_t splitOf(const std::vector<int64_t>& bucket_splits, size_t u, int64_t numel) {
  if (u == 0 || u >= bucket_splits.size()) return 0;
  const int64_t s = bucket_splits[u];
  return s > 0 && s < numel ? s : 0;
}

int64_t chunksOf(int64_t numel, int64_t chunk_numel) { return (numel + chunk_numel - 1) / chunk_numel; }

}  // namespace

int64_t ChunkPlan::countChunks(const std::vector<int64_t>& unit_numels, int64_t chunk_numel,
                               bool split_embedding, const std::vector<int64_t>& bucket_splits) {
  int64_t n = 0;
  for (size_t u = 0; u < unit_numels.size(); ++u) {
    const int64_t numel = unit_numels[u], s = splitOf(bucket_splits, u, numel);
    n += s > 0 ? chunksOf(s, chunk_numel) + chunksOf(numel - s, chunk_numel) : chunksOf(numel, chunk_numel);
  }
  if (split_embedding && !unit_numels.empty()) n += chunksOf(unit_numels[0], chunk_numel);
  return n;
}

void ChunkPlan::checkChunkCount(const std::vector<int64_t>& unit_numels, int64_t chunk_numel,
                                bool split_embedding, const std::vector<int64_t>& bucket_splits) {
  if (chunk_numel < 1) throwUserError("--chunk-numel must be >= 1 element, got {}", chunk_numel);
  const int64_t n = countChunks(unit_numels, chunk_numel, split_embedding, bucket_splits);
  if (n <= kMaxChunksPerStep) return;
  // The smallest chunk size within the limit (the count falls as the size grows).
  int64_t lo = chunk_numel, hi = int64_t{1} << 40;
  while (lo + 1 < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    (countChunks(unit_numels, mid, split_embedding, bucket_splits) <= kMaxChunksPerStep ? hi : lo) = mid;
  }
  throwUserError("--chunk-numel {} cuts the model's gradients into {} chunks per step; at most {} "
                 "are allowed (each chunk is a hand-off with its own synchronisation).\nHINT: "
                 "--chunk-numel {} or more (the default 4194304 suits models of 100 M parameters "
                 "and up)", chunk_numel, n, kMaxChunksPerStep, hi);
}

ChunkPlan ChunkPlan::build(const std::vector<int64_t>& unit_numels, int64_t chunk_numel,
                           bool split_embedding, const std::vector<int64_t>& bucket_splits,
                           int tail_units) {
  if (unit_numels.size() < 2) throwUserError("a model needs at least an embedding and a head unit");
  const int layers = static_cast<int>(unit_numels.size()) - 2;
  if (tail_units < 0 || tail_units > layers)
    throwUserError("--update-tail-units {} is outside 0..{} (the model's decoder layers)", tail_units, layers);
  if (!bucket_splits.empty() && bucket_splits.size() != unit_numels.size())
    throwUserError("{} gradient bucket splits for {} units", bucket_splits.size(), unit_numels.size());
  checkChunkCount(unit_numels, chunk_numel, split_embedding, bucket_splits);
  ChunkPlan p;
  p.tail_units = tail_units;
  p.unit_numels = unit_numels;
  p.chunk_numel = chunk_numel;
  p.split_embedding = split_embedding;
  p.bucket_splits.assign(unit_numels.size(), 0);
  auto range = [&](int u, int64_t b0, int64_t e0, ChunkPass pass) {
    for (int64_t b = b0; b < e0; b += chunk_numel)
      p.chunks.push_back({u, b, std::min(e0, b + chunk_numel), false, pass});
  };
  auto add = [&](int u, ChunkPass pass) {
    const int64_t n = unit_numels[u];
    if (n < 1) throwUserError("unit {} has no parameters", u);
    const int64_t s = splitOf(bucket_splits, static_cast<size_t>(u), n);
    p.bucket_splits[u] = s;
    if (s > 0) {
      range(u, s, n, pass);
      range(u, 0, s, pass);
    } else {
      range(u, 0, n, pass);
    }
    p.chunks.back().last_of_unit = pass != ChunkPass::kEmbeddingDense;
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

ChunkPlan ChunkPlan::withTail(int tail) const {
  ChunkPlan p = build(unit_numels, chunk_numel, split_embedding, bucket_splits, tail);
  p.dense_pass_written = dense_pass_written;
  return p;
}

std::vector<int> ChunkPlan::unitOrder() const {
  std::vector<int> order;
  for (int u = static_cast<int>(unit_numels.size()) - 1; u > tail_units; --u) order.push_back(u);
  for (int u = 0; u <= tail_units; ++u) order.push_back(u);  // the embedding, then layers 1..m
  return order;
}

int64_t ChunkPlan::embeddingLastPassStart() const {
  for (int64_t i = 0; i < chunksPerStep(); ++i)
    if (chunks[i].unit == 0 && chunks[i].pass != ChunkPass::kEmbeddingDense) return i;
  return chunksPerStep();
}

std::vector<int> ChunkPlan::updateOrder() const {
  std::vector<int> order;
  std::vector<char> seen(unit_numels.size(), 0);
  for (const Chunk& c : chunks)
    if (!seen[c.unit]) seen[c.unit] = 1, order.push_back(c.unit);
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
