// Learning-rate schedules against closed-form values of HF transformers' lr_lambda functions
// (optimization.py). Tolerance 1e-15 absolute: the multipliers are O(1) double expressions,
// computed once each; only cos() and one division round.
#include <gtest/gtest.h>

#include <cmath>

#include "common/errors.h"
#include "optim/lr_schedule.h"

namespace slidedp::optim {
namespace {

constexpr double kTol = 1e-15;

TEST(LrSchedule, ConstantWithWarmup) {
  LrSchedule s{LrScheduleKind::kConstant, 2e-3, 4, 0, 0.5};
  EXPECT_NEAR(lrMultiplier(s, 0), 0.0, kTol);  // HF: the first update runs at lr 0
  EXPECT_NEAR(lrMultiplier(s, 1), 0.25, kTol);
  EXPECT_NEAR(lrMultiplier(s, 2), 0.5, kTol);
  EXPECT_NEAR(lrMultiplier(s, 4), 1.0, kTol);
  EXPECT_NEAR(lrMultiplier(s, 1000), 1.0, kTol);
  EXPECT_NEAR(scheduledLr(s, 3), 1.5e-3, kTol);
  s.warmupSteps = 0;
  EXPECT_NEAR(lrMultiplier(s, 0), 1.0, kTol);
}

TEST(LrSchedule, LinearWithWarmup) {
  LrSchedule s{LrScheduleKind::kLinear, 1e-3, 10, 100, 0.5};
  EXPECT_NEAR(lrMultiplier(s, 0), 0.0, kTol);
  EXPECT_NEAR(lrMultiplier(s, 5), 0.5, kTol);
  EXPECT_NEAR(lrMultiplier(s, 10), 1.0, kTol);
  EXPECT_NEAR(lrMultiplier(s, 55), 0.5, kTol);  // (100 - 55) / 90
  EXPECT_NEAR(lrMultiplier(s, 91), 1.0 / 10.0, kTol);
  EXPECT_NEAR(lrMultiplier(s, 100), 0.0, kTol);
  EXPECT_NEAR(lrMultiplier(s, 150), 0.0, kTol);  // clamped at 0
  EXPECT_NEAR(scheduledLr(s, 55), 0.5e-3, kTol);
}

TEST(LrSchedule, CosineWithWarmup) {
  LrSchedule s{LrScheduleKind::kCosine, 1.0, 10, 110, 0.5};
  EXPECT_NEAR(lrMultiplier(s, 3), 0.3, kTol);
  EXPECT_NEAR(lrMultiplier(s, 10), 1.0, kTol);
  EXPECT_NEAR(lrMultiplier(s, 35), 0.5 * (1.0 + std::sqrt(0.5)), kTol);  // progress 1/4
  EXPECT_NEAR(lrMultiplier(s, 60), 0.5, kTol);                           // progress 1/2
  EXPECT_NEAR(lrMultiplier(s, 110), 0.0, kTol);
  // Two full cycles: back at 1 at progress 1/2.
  s.numCycles = 2.0;
  EXPECT_NEAR(lrMultiplier(s, 60), 1.0, kTol);
  // No warm-up: max(1, training - warmup) guards a zero span.
  LrSchedule z{LrScheduleKind::kCosine, 1.0, 0, 0, 0.5};
  EXPECT_NEAR(lrMultiplier(z, 0), 1.0, kTol);
}

TEST(LrSchedule, ParseNames) {
  EXPECT_EQ(parseLrScheduleKind("linear"), LrScheduleKind::kLinear);
  EXPECT_EQ(parseLrScheduleKind("cosine"), LrScheduleKind::kCosine);
  EXPECT_EQ(parseLrScheduleKind("constant_with_warmup"), LrScheduleKind::kConstant);
  EXPECT_THROW(parseLrScheduleKind("polynomial"), UserError);
}

}  // namespace
}  // namespace slidedp::optim
