// Layout: 4 KiB-aligned named regions, sizes, errors.
#include <gtest/gtest.h>

#include "shm/layout.h"

using namespace slidedp::shm;

TEST(Layout, RegionsAreAlignedAndDisjoint) {
  Layout l;
  l.add("a", DType::kF32, 1);
  l.add("b", DType::kBF16, 4097);
  l.add("c", DType::kU8, 0);
  l.add("d", DType::kF32, 1000003);
  uint64_t prev_end = 0;
  for (const Region& r : l.regions()) {
    EXPECT_EQ(r.offset % kRegionAlignment, 0u) << r.name;
    EXPECT_GE(r.offset, prev_end) << r.name;
    prev_end = r.offset + r.bytes();
  }
  EXPECT_EQ(l.at("a").offset, 0u);
  EXPECT_EQ(l.at("b").offset, 4096u);
  EXPECT_EQ(l.at("b").bytes(), 8194u);
  EXPECT_EQ(l.at("c").offset, 4096u * 4);  // 8194 bytes -> next 4 KiB boundary is 12288
  EXPECT_EQ(l.totalBytes() % kRegionAlignment, 0u);
  EXPECT_GE(l.totalBytes(), l.at("d").offset + 4 * 1000003u);
}

TEST(Layout, LargerAlignment) {
  Layout l;
  l.add("small", DType::kU8, 10);
  l.add("huge", DType::kF32, 10, 2u << 20);
  EXPECT_EQ(l.at("huge").offset, 2u << 20);
}

TEST(Layout, RejectsBadInput) {
  Layout l;
  l.add("x", DType::kF32, 1);
  EXPECT_THROW(l.add("x", DType::kF32, 1), std::invalid_argument);            // duplicate
  EXPECT_THROW(l.add("", DType::kF32, 1), std::invalid_argument);             // empty
  EXPECT_THROW(l.add(std::string(64, 'n'), DType::kF32, 1), std::invalid_argument);
  EXPECT_THROW(l.add("y", DType::kF32, 1, 1024), std::invalid_argument);      // < 4 KiB
  EXPECT_THROW(l.add("z", DType::kF32, 1, 3 * 4096), std::invalid_argument);  // not 2^k
  EXPECT_THROW(l.add("w", DType::kF32, ~0ull / 2), std::invalid_argument);    // overflow
  EXPECT_THROW(l.at("nope"), std::out_of_range);
  EXPECT_EQ(l.find("nope"), nullptr);
}

TEST(Layout, DTypeSizes) {
  EXPECT_EQ(dtypeSize(DType::kF32), 4u);
  EXPECT_EQ(dtypeSize(DType::kBF16), 2u);
  EXPECT_EQ(dtypeSize(DType::kF16), 2u);
  EXPECT_EQ(dtypeSize(DType::kU8), 1u);
  EXPECT_EQ(dtypeSize(DType::kI64), 8u);
  EXPECT_THROW(dtypeSize(static_cast<DType>(99)), std::invalid_argument);
  EXPECT_STREQ(dtypeName(DType::kBF16), "bf16");
}

TEST(Layout, PrintsATable) {
  Layout l;
  l.add("state.master.f32", DType::kF32, 1 << 20);
  const std::string s = l.toString();
  EXPECT_NE(s.find("state.master.f32"), std::string::npos);
  EXPECT_NE(s.find("4.00 MiB"), std::string::npos);
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(3ull << 30), "3.00 GiB");
}
