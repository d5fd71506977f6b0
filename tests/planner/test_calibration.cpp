// Unit tests of the host half of calibration (src/planner/calibration.h): which AdamW thread
// counts are timed (hand-written cases), and that each timed count has its median pass with
// the slowest and fastest beside it. Rates themselves are the machine's; only their relations
// are checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "planner/calibration.h"

using namespace slidedp::planner;

namespace {

constexpr size_t kBytes = size_t{8} << 20;  // 8 MiB arrays: a fast test, not a real rate

TEST(HostCalibration, TheLeadersThreadCountIsTimedBesideThePowersOfTwo) {
  // a 16-core host whose leader has 14 (the launcher's 2 worker threads): 14 measured, not
  // interpolated between 8 and 16
  EXPECT_EQ(adamwThreadCounts({}, 16, 14), (std::vector<int>{1, 2, 4, 8, 16, 14}));
  // every core is always timed; a leader count already in the list is not repeated
  EXPECT_EQ(adamwThreadCounts({}, 12, 8), (std::vector<int>{1, 2, 4, 8, 12}));
  EXPECT_EQ(adamwThreadCounts({2}, 6, 6), (std::vector<int>{2, 6}));
  // no leader count, or one above the cores, adds nothing
  EXPECT_EQ(adamwThreadCounts({}, 4, 0), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(adamwThreadCounts({1}, 4, 100000), (std::vector<int>{1, 4}));
}

TEST(HostCalibration, EveryCountTimedHasARateAndARange) {
  const HostRates r = measureHost(kBytes, {1}, 1, 3);
  ASSERT_GE(r.cores, 1);
  std::vector<int> timed;
  for (const auto& [t, gbps] : r.adamw_gbps) timed.push_back(t);
  std::vector<int> want = adamwThreadCounts({1}, r.cores, 1);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(timed, want);
  EXPECT_EQ(r.adamw_gbps.size(), r.adamw_range_gbps.size());
}

TEST(HostCalibration, EachRateIsTheMedianPassBetweenTheSlowestAndTheFastest) {
  const HostRates r = measureHost(kBytes, {1}, 0, 5);
  for (const auto& [t, gbps] : r.adamw_gbps) {
    const auto& [slowest, fastest] = r.adamw_range_gbps.at(t);
    EXPECT_GT(slowest, 0) << t << " threads";
    EXPECT_LE(slowest, gbps) << t << " threads";
    EXPECT_LE(gbps, fastest) << t << " threads";
  }
}

}  // namespace

namespace {

TEST(DeviceCalibration, ALongGpuPassIsTimedOnce) {
  // a first timed pass of a 576K-token layer backward (12.2 s), and one just at the bound: no more
  EXPECT_EQ(timedPasses(true, 12.2, 3), 1);
  EXPECT_EQ(timedPasses(true, kLongPassS, 3), 1);
  // a 4K-token layer (tens of ms): the median of every requested pass
  EXPECT_EQ(timedPasses(true, 0.04, 3), 3);
  EXPECT_EQ(timedPasses(true, 0.999, 5), 5);
}

TEST(DeviceCalibration, CpuPassesKeepEveryRepetitionAndAtLeastOneIsTimed) {
  // CPU workers' calibration keeps its repetitions however long (their minimum filters the
  // host's other work); a request for none still times one
  EXPECT_EQ(timedPasses(false, 30.0, 5), 5);
  EXPECT_EQ(timedPasses(false, 0.01, 5), 5);
  EXPECT_EQ(timedPasses(true, 0.01, 0), 1);
  EXPECT_EQ(timedPasses(false, 2.0, -2), 1);
}

}  // namespace

namespace {

TEST(DeviceCalibration, TheFirstStepReserveAddsWhatTheRuntimeHoldsBesideTheMeasuredPeaks) {
  const double GiB = double(1ull << 30);
  // the larger peak, 4 fp32 gradients of the largest unit, the embedding's fp32 gradient, 2
  // inputs, then 5% and 512 MiB
  const double r = firstStepReserveBytes(40 * GiB, 6 * GiB, 1e8, 3e8, 2 * GiB);
  EXPECT_DOUBLE_EQ(r, (40 * GiB + 16e8 + 12e8 + 4 * GiB) * 1.05 + 0.5 * GiB);
  EXPECT_DOUBLE_EQ(firstStepReserveBytes(1 * GiB, 3 * GiB, 0, 0, 0), 3 * GiB * 1.05 + 0.5 * GiB);
  // never below either peak
  EXPECT_GT(firstStepReserveBytes(7 * GiB, 9 * GiB, 0, 0, 0), 9 * GiB);
}

}  // namespace
