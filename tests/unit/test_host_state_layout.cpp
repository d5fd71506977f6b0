// Host-state layout: unit sizes of a Llama-family decoder and the regions they fill.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "runtime/host_state_layout.h"

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
