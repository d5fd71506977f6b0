// The pace the job gives a streamed checkpoint's direct write (train/checkpoint_pace.h): a
// schedule from the median recent step, and a pumping grace longer than the leader's busy
// stretch between two idle times.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "train/checkpoint_pace.h"

using namespace slidedp;

// The 4B run on 1x H200 (tools/gpu-check.sh ckpt, SLIDEDP_CKPT_EVERY=100): steps of ~1.65 s, the
// leader's AdamW update 1.05-1.3 s of each. A 1 s grace expired inside every update, so the
// writer copied there; the grace must outlast a step.
TEST(CheckpointPace, GraceOutlastsAStepAndTheScheduleIsEightyPercentOfTheInterval) {
  const std::vector<double> steps(10, 1.65);
  const CheckpointPace p = checkpointPace(steps, 99);
  EXPECT_NEAR(p.finish_by_s, 0.8 * 99 * 1.65, 1e-9);
  EXPECT_NEAR(p.pump_grace_s, 3.3, 1e-9);
  EXPECT_GT(p.pump_grace_s, 1.3);  // the slowest update seen during a write
}

// The median, not the mean: the step that copies into staging (2.7 s) or a slow first step does
// not stretch the schedule; times that are not positive (not measured) are ignored.
TEST(CheckpointPace, MedianOfThePositiveRecentSteps) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const CheckpointPace p = checkpointPace({1.6, 2.7, 1.7, 1.65, 30.0, 0.0, -1.0, nan}, 50);
  EXPECT_NEAR(p.finish_by_s, 0.8 * 50 * 1.7, 1e-9);  // median of 1.6 1.65 1.7 2.7 30 is 1.7
  EXPECT_NEAR(p.pump_grace_s, 3.4, 1e-9);
}

// Short steps (CPU workers, a small model) keep the writer's 1 s floor; an even count takes the
// middle pair's mean.
TEST(CheckpointPace, OneSecondFloorForShortSteps) {
  const CheckpointPace p = checkpointPace({0.01, 0.03}, 7);
  EXPECT_NEAR(p.finish_by_s, 0.8 * 7 * 0.02, 1e-12);
  EXPECT_EQ(p.pump_grace_s, 1.0);
}

// Nothing timed yet, or no step ahead: no schedule and the writer's default grace (0 = default).
TEST(CheckpointPace, NothingToPaceFrom) {
  for (const CheckpointPace& p : {checkpointPace({}, 100), checkpointPace({1.5, 1.6}, 0),
                                  checkpointPace({0.0, -2.0}, 10)}) {
    EXPECT_EQ(p.finish_by_s, 0.0);
    EXPECT_EQ(p.pump_grace_s, 0.0);
  }
}
