// Host-state layout: unit sizes of a Llama-family decoder and the regions they fill.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "runtime/chunk_plan.h"
#include "runtime/host_memory.h"
#include "runtime/host_state_layout.h"
#include "runtime/node_shards.h"

using namespace slidedp;

TEST(HostStateLayout, Stories260KShape) {
  ModelShape m;  // defaults: stories260K (dim 64, 5 layers, 8 heads, 4 kv heads, hidden 172)
  const auto n = m.unitNumels();
  ASSERT_EQ(n.size(), 7u);
  EXPECT_EQ(n[0], 512 * 64);
  // 2 norms + q (64x64) + k, v (64x32 each) + o (64x64) + 3 MLP (64x172)
  EXPECT_EQ(n[1], 2 * 64 + 64 * 64 + 2 * 64 * 32 + 64 * 64 + 3 * 64 * 172);
  EXPECT_EQ(n[6], 64);  // final norm; the head is tied to the embedding
  // The real checkpoint has 260032 parameters (tied embeddings counted once).
  EXPECT_EQ(m.numParams(), 260032);
}

TEST(HostStateLayout, UnitsAlignedAndRegionsSized) {
  HostStateSpec spec;
  spec.model.tie_word_embeddings = false;
  spec.model.qkv_bias = true;
  spec.model.qk_norm = true;
  spec.num_workers = 3;
  spec.num_slots = 5;
  spec.chunk_numel = 12345;
  const HostStateLayout h = HostStateLayout::build(spec);
  for (size_t u = 0; u < h.units.size(); ++u) {
    EXPECT_EQ(h.units[u].offset % kUnitAlignElems, 0u);
    if (u) {
      EXPECT_GE(h.units[u].offset, h.units[u - 1].offset + h.units[u - 1].numel);
    }
  }
  EXPECT_EQ(h.units.back().numel, 64u + 512u * 64u);
  EXPECT_EQ(h.layout.at(kMasterRegion).numel, h.param_region_numel);
  EXPECT_EQ(h.layout.at(kComputeCopyRegion).dtype, shm::DType::kBF16);
  EXPECT_EQ(h.layout.at(kStagingRegion).numel, 5u * 3u * 12345u);
  EXPECT_EQ(HostStateLayout::stagingOffset(spec, 4, 2), (4u * 3u + 2u) * 12345u);
  spec.num_slots = 0;
  EXPECT_THROW(HostStateLayout::build(spec), UserError);
}

TEST(HostMemory, NeedByPartAndRefusalWithBytes) {
  HostStateSpec spec;  // stories260K shape, 2 workers
  spec.num_workers = 2;
  const HostStateLayout state = HostStateLayout::build(spec);
  // B = 2 rows of T = 1000 tokens, C = 64, L = 5, 3 ranks.
  const HostMemoryNeed plain = estimateHostMemory(state, 3, 2, 1000, 64, 5, false);
  EXPECT_EQ(plain.segment_bytes, state.layout.totalBytes());
  EXPECT_EQ(plain.offload_bytes, 0u);
  EXPECT_EQ(plain.token_bytes, 3u * 8 * 2000 * 4);  // ids, labels, positions x (3 ranks + 1)
  const HostMemoryNeed off = estimateHostMemory(state, 3, 2, 1000, 64, 5, true);
  // L x (per worker: 1 row x T x C x bf16 = 128000 B in an exact-size pinned buffer, rounded
  // up to the 4 KiB page: 131072) x 2 workers
  EXPECT_EQ(off.offload_bytes, 5u * 131072 * 2);
  EXPECT_EQ(estimateHostMemory(state, 3, 2, 1000, 40, 5, true).offload_bytes, 5u * 81920 * 2);  // 80000
  EXPECT_EQ(powerOf2Ceil(1), 1u);
  EXPECT_EQ(powerOf2Ceil(131072), 131072u);
  EXPECT_EQ(powerOf2Ceil(131073), 262144u);
  // The 512K case of issue 14 (Qwen3-4B shape, 1 worker, L = 36, C = 2560): a boundary
  // activation is 2.5 GiB, counted exactly (90 GiB for the 36 layers; torch's pinned allocator
  // took a 4 GiB block each, 144 GiB).
  HostStateSpec one;
  one.num_workers = 1;
  EXPECT_EQ(estimateHostMemory(HostStateLayout::build(one), 2, 1, 524288, 2560, 36, true).offload_bytes,
            36ull * 524288 * 2560 * 2);
  EXPECT_EQ(off.total(), off.segment_bytes + off.offload_bytes + off.token_bytes);
  EXPECT_NO_THROW(checkHostMemory(off, off.total()));
  EXPECT_NO_THROW(checkHostMemory(off, 0));  // unknown: never refused
  try {
    checkHostMemory(off, off.total() - 1);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(std::to_string(off.total()) + " bytes"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(off.total() - 1) + " bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("--offload-activations"), std::string::npos) << m;
    // the default ring (4 slots x 2 workers x 2^20 fp32 = 32 MiB) is most of this small need
    EXPECT_NE(m.find("--chunk-numel or --ring-slots (the gradient staging ring takes 32.00 MiB)"),
              std::string::npos) << m;
    EXPECT_EQ(m.find("fewer tokens"), std::string::npos) << "the tokens are < 10% of it\n" << m;
  }
  // The staging ring's own share, and its flags suggested when it is what is large (a huge
  // --chunk-numel or --ring-slots), not fewer tokens.
  EXPECT_EQ(plain.staging_bytes, state.layout.at(kStagingRegion).bytes());
  HostStateSpec ring = spec;
  ring.chunk_numel = uint64_t{1} << 30;
  const HostMemoryNeed big = estimateHostMemory(HostStateLayout::build(ring), 3, 2, 1000, 64, 5, false);
  EXPECT_EQ(big.staging_bytes, 4ull * 2 * (uint64_t{1} << 30) * 4);  // slots x G x chunk x fp32
  try {
    checkHostMemory(big, big.total() / 2);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("a smaller --chunk-numel or --ring-slots (the gradient staging ring takes 32.00 GiB)"),
              std::string::npos) << m;
    EXPECT_NE(m.find("gradient staging ring 32.00 GiB"), std::string::npos) << m;
    EXPECT_EQ(m.find("fewer tokens"), std::string::npos) << m;
  }
  EXPECT_GT(memAvailableBytes(), 0u);  // Linux: /proc/meminfo has MemAvailable
}

// Sharded across nodes (runtime/node_shards.h): the N nodes' parts of every chunk tile it
// exactly, in node order; a node's parts of a unit are stored back to back in element order; the
// owned regions are sized by the parts and the delivery copy stays whole.
TEST(NodeShards, PartsTileEveryChunkAndSizeTheOwnedRegions) {
  const std::vector<int64_t> units = {5000, 12345, 64, 1};
  const ChunkPlan plan = ChunkPlan::build(units, 1000);
  for (int N : {1, 2, 3, 5}) {
    std::vector<NodeShards> s;
    for (int p = 0; p < N; ++p) s.push_back(NodeShards::build(plan, N, p));
    for (size_t i = 0; i < plan.chunks.size(); ++i) {
      const Chunk& c = plan.chunks[i];
      const std::vector<int> counts = NodeShards::partCounts(c, N);
      int64_t at = c.begin;
      for (int p = 0; p < N; ++p) {
        EXPECT_EQ(s[p].parts[i].begin, at) << "N " << N << " chunk " << i << " node " << p;
        EXPECT_EQ(s[p].parts[i].numel(), counts[p]);
        at = s[p].parts[i].end;
      }
      EXPECT_EQ(at, c.end) << "N " << N << " chunk " << i;
    }
    for (size_t u = 0; u < units.size(); ++u) {
      int64_t total = 0;
      for (int p = 0; p < N; ++p) {
        int64_t next = 0;  // offsets run back to back over the unit's chunks in element order
        for (size_t i = 0; i < plan.chunks.size(); ++i)
          if (plan.chunks[i].unit == static_cast<int>(u)) {
            EXPECT_EQ(s[p].parts[i].offset, next);
            next += s[p].parts[i].numel();
          }
        EXPECT_EQ(next, s[p].owned_numels[u]);
        total += s[p].owned_numels[u];
      }
      EXPECT_EQ(total, units[u]) << "N " << N << " unit " << u;
    }
  }
  EXPECT_THROW(NodeShards::build(plan, 2, 2), UserError);

  HostStateSpec spec;
  spec.unit_numels = units;
  spec.num_workers = 2;
  spec.chunk_numel = 1000;
  spec.owned_numels = NodeShards::build(plan, 3, 0).owned_numels;
  spec.f32_delivery = true;
  const HostStateLayout h = HostStateLayout::build(spec);
  EXPECT_TRUE(h.sharded);
  EXPECT_EQ(h.layout.at(kDeliveryF32Region).numel, h.param_region_numel);
  EXPECT_EQ(h.layout.find(kComputeCopyRegion), nullptr);
  EXPECT_LT(h.layout.at(kMasterRegion).numel, h.param_region_numel);
  EXPECT_STREQ(deliveryRegion(h, true), kDeliveryF32Region);
  EXPECT_STREQ(deliveryRegion(h, false), kComputeCopyRegion);
}

// The row-split embedding plan hands unit 0 off twice over the same ranges (dense pass, token
// pass): both chunks of a range get the same part, stored once, so the owned sizes are the
// unit sizes of a plan without the split (N = 1 included: the leader's checkpoint and resume
// size unit 0 by owned_numels).
TEST(NodeShards, SplitEmbeddingPassesShareTheirParts) {
  const std::vector<int64_t> units = {5000, 12345, 64};
  const ChunkPlan split = ChunkPlan::build(units, 1000, /*split_embedding=*/true);
  const ChunkPlan whole = ChunkPlan::build(units, 1000);
  for (int N : {1, 2, 3}) {
    for (int p = 0; p < N; ++p) {
      const NodeShards s = NodeShards::build(split, N, p), w = NodeShards::build(whole, N, p);
      EXPECT_EQ(s.owned_numels, w.owned_numels) << "N " << N << " node " << p;
      for (size_t i = 0; i < split.chunks.size(); ++i)
        for (size_t j = 0; j < split.chunks.size(); ++j) {
          const Chunk &a = split.chunks[i], &b = split.chunks[j];
          if (a.unit != b.unit || a.begin != b.begin) continue;
          EXPECT_EQ(s.parts[i].begin, s.parts[j].begin);
          EXPECT_EQ(s.parts[i].end, s.parts[j].end);
          EXPECT_EQ(s.parts[i].offset, s.parts[j].offset);
        }
    }
  }
}

// A chunk size that would cut a step into millions of hand-offs is refused up front, naming the
// count and the smallest size within the limit (it made a 4B plan throw std::bad_alloc).
TEST(ChunkPlan, TooManyChunksPerStepIsAClearErrorWithTheSmallestSizeThatFits) {
  const std::vector<int64_t> units = {388971520, 100663296, 100663296, 2560};  // ~0.6 G elements
  try {
    ChunkPlan::build(units, 1);
    FAIL() << "--chunk-numel 1 accepted";
  } catch (const UserError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--chunk-numel 1 cuts the model's gradients into 590300672 chunks per step"),
              std::string::npos) << m;
    EXPECT_NE(m.find("at most 1048576"), std::string::npos) << m;
    const auto at = m.find("HINT: --chunk-numel ");
    ASSERT_NE(at, std::string::npos) << m;
    const int64_t hint = std::stoll(m.substr(at + 20));
    EXPECT_LE(ChunkPlan::countChunks(units, hint), kMaxChunksPerStep);
    EXPECT_GT(ChunkPlan::countChunks(units, hint - 1), kMaxChunksPerStep);
    EXPECT_EQ(ChunkPlan::build(units, hint).chunksPerStep(), ChunkPlan::countChunks(units, hint));
  }
  EXPECT_THROW(ChunkPlan::build(units, 0), UserError);
  EXPECT_EQ(ChunkPlan::build(units, 1000, true).chunksPerStep(), ChunkPlan::countChunks(units, 1000, true));
}
