// Gradient buckets (ChunkPlan::bucket_splits): a decoder layer's MLP part is handed off before
// the rest of its unit. The plan's order, the chunks covering each element once, the version
// published after the unit's last chunk in plan order, the one-node shards, and the layout's
// split at the post-attention norm.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "common/errors.h"
#include "model/config.h"
#include "model/param_layout.h"
#include "runtime/chunk_plan.h"
#include "runtime/node_shards.h"

using namespace slidedp;

namespace {

// Every element of every kWhole unit covered exactly once, and per unit the chunk list in plan
// order.
std::vector<std::vector<Chunk>> wholeChunks(const ChunkPlan& p) {
  std::vector<std::vector<Chunk>> out(p.unit_numels.size());
  for (const Chunk& c : p.chunks)
    if (c.pass == ChunkPass::kWhole) out[c.unit].push_back(c);
  for (size_t u = 0; u < out.size(); ++u) {
    std::vector<int> hits(static_cast<size_t>(p.unit_numels[u]), 0);
    for (const Chunk& c : out[u])
      for (int64_t e = c.begin; e < c.end; ++e) ++hits[static_cast<size_t>(e)];
    for (size_t e = 0; e < hits.size(); ++e)
      if (!(p.split_embedding && u == 0)) {
        EXPECT_EQ(hits[e], 1) << "unit " << u << " element " << e;
      }
  }
  return out;
}

}  // namespace

TEST(GradientBuckets, PlanHandsTheSecondPartOffFirstAndPublishesAfterTheLast) {
  // Units: embedding 10, layers 11 and 9, head 3; chunks of 4; layer 1 split at 5, layer 2 at 6.
  const std::vector<int64_t> numels = {10, 11, 9, 3};
  const std::vector<int64_t> splits = {0, 5, 6, 0};
  for (const bool split_embedding : {false, true}) {
    const ChunkPlan p = ChunkPlan::build(numels, 4, split_embedding, splits);
    EXPECT_TRUE(p.bucketed());
    EXPECT_EQ(p.chunksPerStep(), ChunkPlan::countChunks(numels, 4, split_embedding, splits));
    const auto per_unit = wholeChunks(p);
    // layer 1: [5, 9), [9, 11) then [0, 4), [4, 5); layer 2: [6, 9) then [0, 4), [4, 6)
    const std::vector<std::pair<int64_t, int64_t>> l1 = {{5, 9}, {9, 11}, {0, 4}, {4, 5}};
    const std::vector<std::pair<int64_t, int64_t>> l2 = {{6, 9}, {0, 4}, {4, 6}};
    for (const auto& [u, want] : {std::make_pair(1, l1), std::make_pair(2, l2)}) {
      ASSERT_EQ(per_unit[u].size(), want.size()) << "unit " << u;
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(per_unit[u][i].begin, want[i].first) << "unit " << u << " chunk " << i;
        EXPECT_EQ(per_unit[u][i].end, want[i].second) << "unit " << u << " chunk " << i;
        EXPECT_EQ(per_unit[u][i].last_of_unit, i + 1 == want.size()) << "unit " << u << " chunk " << i;
      }
    }
    // The embedding and the head: one bucket, ascending; the embedding's splits are ignored.
    EXPECT_EQ(p.bucketSplit(0), 0);
    EXPECT_EQ(p.bucketSplit(3), 0);
    EXPECT_EQ(per_unit[3].size(), 1u);
    // A unit's chunks stay together, units in backward order (head, layers L..1, embedding).
    std::vector<int> order;
    for (const Chunk& c : p.chunks)
      if (c.pass == ChunkPass::kWhole && (order.empty() || order.back() != c.unit)) order.push_back(c.unit);
    EXPECT_EQ(order, split_embedding ? (std::vector<int>{3, 2, 1}) : (std::vector<int>{3, 2, 1, 0}));
    // One node owns every element of every chunk (NodeShards sorts by element, not plan order).
    const NodeShards one = NodeShards::build(p, 1, 0);
    for (size_t u = 0; u < numels.size(); ++u) EXPECT_EQ(one.owned_numels[u], numels[u]) << "unit " << u;
    // ... at the chunk's own elements: the leader addresses master/m/v at the part's offset, and
    // checkpoints lay the unit out in element order.
    for (size_t i = 0; i < p.chunks.size(); ++i) {
      EXPECT_EQ(one.parts[i].numel(), p.chunks[i].numel());
      if (p.chunks[i].pass == ChunkPass::kWhole) {
        EXPECT_EQ(one.parts[i].offset, p.chunks[i].begin) << "chunk " << i;
      }
    }
  }
}

// ChunkPlan::withTail (a --route-sweep variant's +tailM): the same chunks, as many per step (the
// hand-off sequence numbers run on across the change), in the tail's order: head, L..M+1, the
// embedding, then layers 1..M, each with its buckets; and back.
TEST(GradientBuckets, ATailReordersTheSameChunks) {
  const std::vector<int64_t> numels = {10, 11, 9, 3};
  const std::vector<int64_t> splits = {0, 5, 6, 0};
  for (const bool split_embedding : {false, true}) {
    ChunkPlan p = ChunkPlan::build(numels, 4, split_embedding, splits);
    p.dense_pass_written = true;
    const ChunkPlan t = p.withTail(1);
    EXPECT_EQ(t.tail_units, 1);
    EXPECT_TRUE(t.dense_pass_written);
    EXPECT_EQ(t.chunksPerStep(), p.chunksPerStep());
    EXPECT_EQ(t.unitOrder(), (std::vector<int>{3, 2, 0, 1}));
    auto key = [](const Chunk& c) { return std::make_tuple(c.unit, c.begin, c.end, static_cast<int>(c.pass), c.last_of_unit); };
    std::vector<decltype(key(p.chunks[0]))> a, b;
    for (const Chunk& c : p.chunks) a.push_back(key(c));
    for (const Chunk& c : t.chunks) b.push_back(key(c));
    EXPECT_NE(a, b);  // reordered
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);  // the same chunks
    // layer 1's chunks last, its MLP bucket first as without the tail
    EXPECT_EQ(t.chunks.back().unit, 1);
    EXPECT_EQ(t.chunks[t.chunksPerStep() - 4].begin, 5);
    const ChunkPlan back = t.withTail(0);
    ASSERT_EQ(back.chunksPerStep(), p.chunksPerStep());
    for (int64_t i = 0; i < p.chunksPerStep(); ++i) EXPECT_EQ(key(back.chunks[i]), key(p.chunks[i])) << i;
    EXPECT_THROW(p.withTail(3), UserError);
  }
}

TEST(GradientBuckets, SplitsOutsideTheUnitMeanOneBucketAndSizesMustMatch) {
  const std::vector<int64_t> numels = {10, 8, 8, 3};
  const ChunkPlan whole = ChunkPlan::build(numels, 4);
  for (const std::vector<int64_t>& splits :
       {std::vector<int64_t>{}, std::vector<int64_t>{0, 0, 8, 0}, std::vector<int64_t>{4, -1, 9, 3}}) {
    const ChunkPlan p = ChunkPlan::build(numels, 4, false, splits);
    EXPECT_FALSE(p.bucketed());
    ASSERT_EQ(p.chunksPerStep(), whole.chunksPerStep());
    for (size_t i = 0; i < p.chunks.size(); ++i) {
      EXPECT_EQ(p.chunks[i].unit, whole.chunks[i].unit);
      EXPECT_EQ(p.chunks[i].begin, whole.chunks[i].begin);
      EXPECT_EQ(p.chunks[i].last_of_unit, whole.chunks[i].last_of_unit);
    }
  }
  EXPECT_THROW(ChunkPlan::build(numels, 4, false, {0, 4}), UserError);
  // The chunk-count limit counts the extra cut: a split in the middle of a chunk adds one.
  EXPECT_EQ(ChunkPlan::countChunks({10, 8, 3}, 8, false, {0, 3, 0}), 2 + 2 + 1);
}

TEST(GradientBuckets, LayoutSplitsAtThePostAttentionNorm) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  const model::ParamLayout layout = model::ParamLayout::build(cfg);
  const std::vector<int64_t> splits = layout.gradientBucketSplits();
  ASSERT_EQ(splits.size(), static_cast<size_t>(layout.numUnits()));
  EXPECT_EQ(splits.front(), 0);
  EXPECT_EQ(splits.back(), 0);
  for (int l = 0; l < cfg.numLayers; ++l) {
    const model::UnitLayout& u = layout.units[layout.decoderUnit(l)];
    const int64_t s = splits[u.index];
    // [s, numel) holds exactly the post-attention norm and the MLP (the bucket the backward
    // completes first); everything before it is the input norm and the attention.
    for (const model::ParamEntry& e : u.params) {
      const bool late = e.name.find("post_attention_layernorm") != std::string::npos ||
                        e.name.find(".mlp.") != std::string::npos;
      EXPECT_EQ(e.offset >= s, late) << e.name;
      if (!late) {
        EXPECT_LE(e.offset + e.numel, s) << e.name;
      }
    }
  }
  // Qwen3-4B: 3 x 2560 x 9728 MLP + 2560 norm = 74.7 M of the layer's ~100.9 M go first.
  const model::UnitLayout& l0 = layout.units[1];
  EXPECT_EQ(l0.numel - splits[1], int64_t{3} * 2560 * 9728 + 2560);
}
