// TokenRows (the step's token rows of the row-split embedding update) against brute force, and
// the chunk plan's two embedding passes.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "runtime/chunk_plan.h"
#include "runtime/token_rows.h"

using namespace slidedp;

TEST(TokenRows, RankPackedIndexAndPiecesMatchBruteForce) {
  std::mt19937_64 rng(7);
  for (const auto& [V, C] : {std::pair<int64_t, int64_t>{1, 3}, {64, 5}, {130, 7}, {1000, 64}}) {
    std::vector<int64_t> ids(static_cast<size_t>(V / 3 + 1));
    for (auto& id : ids) id = static_cast<int64_t>(rng() % V);
    std::vector<uint64_t> words(static_cast<size_t>(TokenRows::wordsFor(V)), 0);
    TokenRows::mark(ids.data(), static_cast<int64_t>(ids.size()), words.data());
    const TokenRows t(words.data(), V, C);
    std::vector<bool> in(V, false);
    for (int64_t id : ids) in[id] = true;
    int64_t count = 0;
    std::vector<int64_t> packedOf(V * C + 1);  // packed elements before unit element e
    for (int64_t r = 0; r < V; ++r) {
      EXPECT_EQ(t.contains(r), in[r]) << r;
      EXPECT_EQ(t.rank(r), count) << r;
      for (int64_t j = 0; j < C; ++j) packedOf[r * C + j] = count * C + (in[r] ? j : 0);
      count += in[r];
    }
    packedOf[V * C] = count * C;
    EXPECT_EQ(t.numRows(), count);
    EXPECT_EQ(t.packedNumel(), count * C);
    for (int64_t e = 0; e <= V * C; ++e) ASSERT_EQ(t.packedIndex(e), packedOf[e]) << "V " << V << " e " << e;
    // Pieces of arbitrary ranges (row boundaries cut anywhere): contiguous in packed order.
    for (int trial = 0; trial < 50; ++trial) {
      int64_t b = static_cast<int64_t>(rng() % (V * C + 1)), e = static_cast<int64_t>(rng() % (V * C + 1));
      if (b > e) std::swap(b, e);
      int64_t next = t.packedIndex(b), total = 0;
      for (const auto& p : t.pieces(b, e)) {
        EXPECT_TRUE(in[p.element / C]);
        EXPECT_EQ(p.packed, next);
        EXPECT_EQ(p.packed, packedOf[p.element]);
        EXPECT_EQ(p.element / C, (p.element + p.length - 1) / C) << "a piece stays in one row";
        next += p.length, total += p.length;
      }
      EXPECT_EQ(total, t.packedIndex(e) - t.packedIndex(b));
    }
    std::vector<int64_t> rows;
    for (int64_t r = 0; r < V; ++r)
      if (in[r]) rows.push_back(r);
    EXPECT_EQ(t.rowsIn(0, V), rows);
  }
}

TEST(ChunkPlan, RowSplitEmbeddingPasses) {
  // Units: embedding 10, two layers 7, head 3; chunks of 4.
  const ChunkPlan dense = ChunkPlan::build({10, 7, 7, 3}, 4);
  const ChunkPlan split = ChunkPlan::build({10, 7, 7, 3}, 4, true);
  EXPECT_EQ(split.chunksPerStep(), dense.chunksPerStep() + 3);
  // head, embedding (dense pass), layer 2, layer 1, embedding (token pass)
  std::vector<std::pair<int, ChunkPass>> order;
  for (const Chunk& c : split.chunks)
    if (order.empty() || order.back() != std::make_pair(c.unit, c.pass)) order.push_back({c.unit, c.pass});
  const std::vector<std::pair<int, ChunkPass>> want = {{3, ChunkPass::kWhole}, {0, ChunkPass::kEmbeddingDense},
                                                       {2, ChunkPass::kWhole}, {1, ChunkPass::kWhole},
                                                       {0, ChunkPass::kEmbeddingTokens}};
  EXPECT_EQ(order, want);
  int published = 0;
  for (const Chunk& c : split.chunks)
    if (c.unit == 0 && c.last_of_unit) {
      ++published;
      EXPECT_EQ(c.pass, ChunkPass::kEmbeddingTokens) << "the version goes out after the token pass";
    }
  EXPECT_EQ(published, 1);
  // The streamed checkpoint writes units in this order (each before its first update).
  EXPECT_EQ(split.updateOrder(), (std::vector<int>{3, 0, 2, 1}));
  EXPECT_EQ(dense.updateOrder(), dense.unitOrder());
}
