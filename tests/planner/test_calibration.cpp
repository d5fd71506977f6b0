// Unit tests of the host half of calibration (src/planner/calibration.h): which AdamW thread
// counts are measured, and that each rate is the median pass with the slowest and fastest
// beside it. Rates themselves are the machine's; only their relations are checked.
#include <gtest/gtest.h>

#include "planner/calibration.h"

using namespace slidedp::planner;

namespace {

constexpr size_t kBytes = size_t{8} << 20;  // 8 MiB arrays: a fast test, not a real rate

TEST(HostCalibration, TheLeadersThreadCountIsMeasuredBesideTheDefaults) {
  const HostRates r = measureHost(kBytes, {1}, 2, 3);
  ASSERT_GE(r.cores, 1);
  EXPECT_TRUE(r.adamw_gbps.count(1));
  EXPECT_TRUE(r.adamw_gbps.count(r.cores));  // every allowed core, always
  if (r.cores >= 2) EXPECT_TRUE(r.adamw_gbps.count(2));  // the leader's count
  EXPECT_EQ(r.adamw_gbps.size(), r.adamw_range_gbps.size());
}

TEST(HostCalibration, ALeaderCountAboveTheCoresIsNotMeasured) {
  const HostRates r = measureHost(kBytes, {1}, 100000, 1);
  EXPECT_FALSE(r.adamw_gbps.count(100000));
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
