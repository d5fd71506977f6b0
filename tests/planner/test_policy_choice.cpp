// Whether a job plans its policy (apps/policy_choice.h): --policy auto is the default on GPU
// workers of one node without knob flags; everything else keeps the flags as given.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <gtest/gtest.h>

#include "apps/policy_choice.h"
#include "apps/worker_options.h"

namespace slidedp {
namespace {

std::vector<std::string> knobsOf(std::vector<std::string> args) {
  CLI::App app;
  WorkerOptions o;
  addWorkerOptions(app, o);
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments reversed
  app.parse(args);
  return policyKnobsGiven(app);
}

TEST(PolicyChoice, TheDefaultPlansOnGpuWorkersOfOneNode) {
  const PolicyChoice c = choosePolicy("auto", false, {}, true, 1, false);
  EXPECT_TRUE(c.plan);
  EXPECT_TRUE(c.defaulted);
  EXPECT_EQ(c.why_manual, "");
}

TEST(PolicyChoice, TheDefaultStaysManualWithAKnobASweepSeveralNodesOrCpuWorkers) {
  const PolicyChoice knob = choosePolicy("auto", false, {"--delivery", "--window"}, true, 1, false);
  EXPECT_FALSE(knob.plan);
  EXPECT_NE(knob.why_manual.find("--delivery, --window given"), std::string::npos) << knob.why_manual;
  const PolicyChoice sweep = choosePolicy("auto", false, {}, true, 1, true);
  EXPECT_FALSE(sweep.plan);
  EXPECT_NE(sweep.why_manual.find("--route-sweep"), std::string::npos);
  const PolicyChoice nodes = choosePolicy("auto", false, {}, true, 2, false);
  EXPECT_FALSE(nodes.plan);
  EXPECT_NE(nodes.why_manual.find("one node"), std::string::npos);
  const PolicyChoice cpu = choosePolicy("auto", false, {}, false, 1, false);
  EXPECT_FALSE(cpu.plan);
  EXPECT_EQ(cpu.why_manual, "");  // CPU workers: quietly manual
}

TEST(PolicyChoice, AnExplicitPolicyIsTaken) {
  EXPECT_TRUE(choosePolicy("auto", true, {"--delivery"}, false, 1, false).plan);  // overrides the knob
  EXPECT_FALSE(choosePolicy("auto", true, {}, true, 1, false).defaulted);
  EXPECT_FALSE(choosePolicy("manual", true, {}, true, 1, false).plan);
}

#ifdef SLIDEDP_WITH_TRAINING
TEST(PolicyChoice, KnobsGivenAreNamedWithOrWithoutAValue) {
  EXPECT_TRUE(knobsOf({"--seq-len", "512", "--lr", "1e-4"}).empty());
  const auto k = knobsOf({"--offload-activations", "--micro-batch-rows", "2", "--delivery=sharded"});
  EXPECT_EQ(k, (std::vector<std::string>{"--delivery", "--micro-batch-rows", "--offload-activations"}));
}
#endif

}  // namespace
}  // namespace slidedp
