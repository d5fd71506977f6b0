// worker/input_placement.h: how many recomputed layers keep their input in pinned host memory.
#include "worker/input_placement.h"

#include <gtest/gtest.h>

namespace slidedp {
namespace {

constexpr int64_t GiB = int64_t{1} << 30;

TEST(InputPlacement, EveryInputFitsTheGpu) {
  // 100 GiB budget, 20 allocated, 10 reserve: room 70 GiB for 36 inputs of 1 GiB.
  EXPECT_EQ(offloadedInputLayers(100 * GiB, 20 * GiB, 10 * GiB, GiB, 36), 0);
  // exactly full: 70 inputs in 70 GiB
  EXPECT_EQ(offloadedInputLayers(100 * GiB, 20 * GiB, 10 * GiB, GiB, 70), 0);
}

TEST(InputPlacement, TheFirstLayersGoToTheHost) {
  // room 70 GiB for 36 inputs of 2.5 GiB (90 GiB): 28 fit (70 GiB), 8 go to the host.
  const int64_t input = 5 * GiB / 2;
  EXPECT_EQ(offloadedInputLayers(100 * GiB, 20 * GiB, 10 * GiB, input, 36), 8);
  // one byte less of room: 27 fit
  EXPECT_EQ(offloadedInputLayers(100 * GiB - 1, 20 * GiB, 10 * GiB, input, 36), 9);
  // the 512K case of the README: 140.4 GiB budget, ~48 GiB working set, 36 x 2.5 GiB = 90:
  // all fit; at 576K (2.8125 GiB each, ~54 GiB working set) 30 fit, 6 to the host.
  EXPECT_EQ(offloadedInputLayers(static_cast<int64_t>(140.4 * GiB), 8 * GiB, 40 * GiB, input, 36), 0);
  EXPECT_EQ(offloadedInputLayers(static_cast<int64_t>(140.4 * GiB), 9 * GiB, 45 * GiB,
                                 static_cast<int64_t>(2.8125 * GiB), 36), 6);
}

TEST(InputPlacement, NoRoomAtAllOffloadsEveryLayer) {
  EXPECT_EQ(offloadedInputLayers(10 * GiB, 8 * GiB, 4 * GiB, GiB, 36), 36);
  EXPECT_EQ(offloadedInputLayers(10 * GiB, 6 * GiB, 4 * GiB, GiB, 36), 36);  // room 0
}

TEST(InputPlacement, DegenerateSizes) {
  EXPECT_EQ(offloadedInputLayers(10 * GiB, 0, 0, GiB, 0), 0);   // no recomputed layer
  EXPECT_EQ(offloadedInputLayers(10 * GiB, 0, 0, 0, 36), 0);    // empty inputs
  EXPECT_EQ(offloadedInputLayers(10 * GiB, 0, 0, GiB, 10), 0);  // 10 x 1 GiB in 10 GiB
  EXPECT_EQ(offloadedInputLayers(10 * GiB, 0, 0, GiB, 11), 1);
}

}  // namespace
}  // namespace slidedp
