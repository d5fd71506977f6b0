// Whether a job plans its policy (apps/policy_choice.h): --policy auto is the default on GPU
// workers of one node without knob flags; everything else keeps the flags as given.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

#include "apps/policy_choice.h"
#include "apps/worker_options.h"
#include "planner/policy.h"

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

/// The resolved configuration of a job started with `args` (what slidedp_worker prints and
/// saves with every checkpoint).
std::string resolvedOf(std::vector<std::string> args) {
  CLI::App app;
  WorkerOptions o;
  addWorkerOptions(app, o);
  std::reverse(args.begin(), args.end());
  app.parse(args);
  return app.config_to_str(/*default_also=*/true, /*write_description=*/false);
}

/// `text` read back as a --config file, the way slidedp_worker reads one.
struct FedBack {
  WorkerOptions o;
  std::vector<std::string> knobs;
};
FedBack feedBack(const std::string& text) {
  const std::string path = "/tmp/slidedp-test-policy-" + std::to_string(getpid()) + ".toml";
  { std::ofstream(path) << text; }
  CLI::App app;
  FedBack f;
  addWorkerOptions(app, f.o);
  app.set_config("--config");
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.parse(std::vector<std::string>{path, "--config"});
  f.knobs = policyKnobsGiven(app);
  std::remove(path.c_str());
  return f;
}

// A run that --policy auto planned saves the plan's knobs (it saved the defaults' lines, so the
// saved configuration fed back ran the defaults): fed back, every knob is the plan's, and the
// knobs count as given, so the same policy runs as given.
TEST(PolicyChoice, TheSavedConfigurationOfAPlannedRunRunsThePlan) {
  const std::string resolved = resolvedOf({"--model-config", "/nonexistent/config.json", "--seq-len", "4096"});
  ASSERT_NE(resolved.find("\nwindow=2\n"), std::string::npos) << resolved;
  planner::Policy p;
  p.delivery = DeliveryRoute::kSharded;
  p.reduction = ReductionRoute::kGpu;
  p.chunk_numel = int64_t{1} << 20;
  p.ring_slots = 6;
  p.window = 3;
  p.micro_batch_rows = 2;
  p.kept_layers = 30;
  p.offload = true;
  p.leader_threads = 12;
  p.tail_units = 16;
  const std::string saved = withPlannedPolicy(resolved, p.flags(36), "--policy auto chose it\nline two");
  EXPECT_EQ(saved.rfind("# --policy auto chose it\n# line two\n", 0), 0u) << saved;
  const FedBack f = feedBack(saved);
  EXPECT_EQ(f.knobs.size(), std::size(kPolicyKnobFlags));
  EXPECT_EQ(f.o.train.delivery, "sharded");
  EXPECT_EQ(f.o.train.reduction, "gpu");
  EXPECT_EQ(f.o.chunk_numel, uint64_t{1} << 20);
  EXPECT_EQ(f.o.ring_slots, 6);
  EXPECT_EQ(f.o.train.train.window_slots, 3);
  EXPECT_EQ(f.o.train.train.micro_batch_rows, 2);
  EXPECT_EQ(f.o.train.activations, "auto");
  EXPECT_EQ(f.o.train.train.max_kept_layers, 30);
  EXPECT_TRUE(f.o.train.train.offload_activations);
  EXPECT_EQ(f.o.train.train.leader_threads, 12);
  EXPECT_EQ(f.o.train.train.update_tail_units, 16);
  EXPECT_EQ(f.o.train.seq_len, 4096);  // the other lines as they were
  // An explicit --policy auto over knob flags: the knobs the plan leaves out take their off
  // values, not the flags the plan overrode.
  const std::string given = resolvedOf({"--model-config", "/x.json", "--policy", "auto", "--offload-activations",
                                        "--leader-threads", "4", "--max-kept-layers", "3",
                                        "--update-tail-units", "5"});
  const FedBack keep = feedBack(withPlannedPolicy(given, planner::Policy{}.flags(36), "kept"));
  EXPECT_EQ(keep.o.train.activations, "keep");
  EXPECT_FALSE(keep.o.train.train.offload_activations);
  EXPECT_EQ(keep.o.train.train.leader_threads, 0);
  EXPECT_EQ(keep.o.train.train.max_kept_layers, -1);
  EXPECT_EQ(keep.o.train.train.update_tail_units, 0);
  EXPECT_EQ(keep.o.train.policy, "auto");  // still planned when fed back, as the run asked
  EXPECT_THROW(withPlannedPolicy(given, "sharded --window 3", ""), std::invalid_argument);
}
#endif

}  // namespace
}  // namespace slidedp
