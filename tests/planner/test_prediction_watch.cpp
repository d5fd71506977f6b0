// Unit tests of PredictionWatch (src/apps/prediction_watch.h): --policy auto's predicted step
// against the measured steps of the run, on hand-made step sequences.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "apps/prediction_watch.h"

using namespace slidedp;

namespace {

// predicted: 1.0 s a step, of it 0.8 s the leader's update and 0.5 s the GPU's compute
const PredictedStep kPlan{1.0, 0.8, 0.5};

/// The warning of a one-step window (20% tolerance) on kPlan for `timed`, after an untimed
/// first step that matches the plan; std::nullopt when none.
std::optional<std::string> warningFor(const MeasuredStep& timed) {
  PredictionWatch w(kPlan, 1, 0.2);
  EXPECT_FALSE(w.observe({1.0, 0.8, 0.5}));  // the untimed first step
  return w.observe(timed);
}

TEST(PredictionWatch, StepsWithinTheToleranceNeverWarn) {
  PredictionWatch w(kPlan, 3, 0.2);
  EXPECT_FALSE(w.observe({5.0, 4.0, 0.5}));  // the first step is not judged, however slow
  for (double s : {1.1, 0.9, 1.19, 0.85, 1.15, 1.0})
    EXPECT_FALSE(w.observe({s, 0.8 * s, 0.5})) << s;
}

TEST(PredictionWatch, ASlowLeaderWarnsOnceWhenTheMedianOfTheWindowIsBeyondTheTolerance) {
  PredictionWatch w(kPlan, 3, 0.2);
  EXPECT_FALSE(w.observe({3.0, 1.0, 0.5}));  // first step
  EXPECT_FALSE(w.observe({1.5, 1.3, 0.5}));  // 1 timed step: the window is not full
  EXPECT_FALSE(w.observe({1.0, 0.8, 0.5}));  // 2
  // 3 timed steps 1.5, 1.0, 1.4: median 1.4 s, +40% > 20%
  const auto warning = w.observe({1.4, 1.2, 0.5});
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("1.400 s (median) against the plan's 1.000 s (+40%"), std::string::npos) << *warning;
  // the update's median 1.2 s is +50% of 0.8 s; the GPU's 0.5 s is +0%: the leader is named
  EXPECT_NE(warning->find("the leader's update 1.200 s against 0.800 s predicted (+50%)"), std::string::npos) << *warning;
  EXPECT_NE(warning->find("AdamW rate in this run is below its calibration"), std::string::npos) << *warning;
  EXPECT_NE(warning->find("--recalibrate"), std::string::npos) << *warning;
  EXPECT_FALSE(w.observe({2.0, 1.8, 0.5}));  // at most once
}

TEST(PredictionWatch, ASlowGpuIsNamedWhenItMovedMoreThanTheLeader) {
  // 1.3 s: +30%; update 0.8 s (+0%), GPU 0.9 s (+80%)
  const auto warning = warningFor({1.3, 0.8, 0.9});
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("the workers compute slower than calibrated"), std::string::npos) << *warning;
}

TEST(PredictionWatch, ASlowLeaderIsNamedEvenWhenItStretchesTheWorkersSpansMore) {
  // 1.5 s: +0.5 s; update 1.1 s (+0.3 s, at least half the step's excess), the workers' span
  // 1.0 s (+0.5 s, +100%: they waited for hand-offs): the leader is the cause
  const auto warning = warningFor({1.5, 1.1, 1.0});
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("AdamW rate in this run is below its calibration"), std::string::npos) << *warning;
}

TEST(PredictionWatch, NeitherSideAloneIsSaidWhenNeitherMovedWithTheStep) {
  const auto warning = warningFor({1.4, 0.8, 0.45});  // +0.4 s; update +0, workers -0.05 s
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("neither side alone"), std::string::npos) << *warning;
}

TEST(PredictionWatch, AFasterRunThanPredictedAlsoWarns) {
  const auto warning = warningFor({0.7, 0.5, 0.5});  // -30%; update -37.5%
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("(-30%"), std::string::npos) << *warning;
  EXPECT_NE(warning->find("above its calibration"), std::string::npos) << *warning;
}

TEST(PredictionWatch, BadArgumentsAreRefused) {
  EXPECT_THROW(PredictionWatch({0.0, 0.8, 0.5}), std::invalid_argument);
  EXPECT_THROW(PredictionWatch(kPlan, 0), std::invalid_argument);
  EXPECT_THROW(PredictionWatch(kPlan, 3, 0.0), std::invalid_argument);
}

}  // namespace
