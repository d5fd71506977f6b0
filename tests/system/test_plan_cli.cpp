// slidedp_plan as a user types it: a misspelt flag (or --config key) is refused, naming it and
// the closest valid one, instead of being priced as the default; a run's own flags pass
// through; --nodes is priced (the network terms) or refused with what to add; the nodes sweep's
// table keeps its columns under its header. The machine
// description file makes it fast (no calibration).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/fixtures.h"    // tests/common: sharedDir, stories
#include "common/subprocess.h"  // tests/common

using namespace slidedp::test;

namespace {

std::vector<std::string> plan(std::vector<std::string> extra) {
  std::vector<std::string> a = {SLIDEDP_PLAN_BIN, "--model-config",
                                std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen2.5-72b.json",
                                "--machine", std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x8.json",
                                "--batch-size", "16", "--top", "1"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

/// The step time of the "best:" line (-1 when absent).
double bestStepSeconds(const std::string& out) {
  std::smatch m;
  if (std::regex_search(out, m, std::regex("\nbest: .* -> ([0-9.]+) s/step"))) return std::stod(m[1]);
  return -1;
}

}  // namespace

TEST(PlanCli, AnUnknownFlagIsRefusedNamingItAndTheClosestOne) {
  Result r = wait(start(plan({"--seq-lenn", "4096"})));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown option --seq-lenn (did you mean --seq-len?)"), std::string::npos)
      << r.output;
  EXPECT_EQ(bestStepSeconds(r.output), -1) << "priced anyway:\n" << r.output;
  Result far = wait(start(plan({"--qqqqqqqq=1"})));
  EXPECT_EQ(far.exit_code, 2) << far.output;
  EXPECT_NE(far.output.find("unknown option --qqqqqqqq\n"), std::string::npos) << far.output;
  // A --config key too.
  const std::string cfg = fmt::format("/tmp/slidedp-plan-cli-{}.toml", getpid());
  { std::ofstream(cfg) << "seq-len = 4096\nbatch-sise = 8\n"; }
  Result key = wait(start(plan({"--config", cfg})));
  std::remove(cfg.c_str());
  EXPECT_EQ(key.exit_code, 2) << key.output;
  EXPECT_NE(key.output.find("unknown key 'batch-sise' in --config " + cfg + " (did you mean batch-size?)"),
            std::string::npos) << key.output;
}

TEST(PlanCli, ARunsOwnFlagsAreAcceptedAndDoNotChangeThePlan) {
  Result bare = wait(start(plan({"--seq-len", "4096"})));
  ASSERT_EQ(bare.exit_code, 0) << bare.output;
  // What launcher/slidedp-run --plan passes: the run's flags (values, bools, negated flags).
  Result run = wait(start(plan({"--seq-len", "4096", "--device", "cpu", "--lr", "1e-5", "--steps", "100",
                                "--schedule", "cosine", "--no-shuffle", "--checkpoint-at-end", "false",
                                "--export-fp32", "--log-all-ranks", "--checkpoint-dir=/tmp/x"})));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_GT(bestStepSeconds(bare.output), 0) << bare.output;
  EXPECT_EQ(bestStepSeconds(run.output), bestStepSeconds(bare.output)) << run.output;
}

// --evaluate --gradient-accumulation-steps: priced, or refused as the run refuses it (h200x8: 16
// rows over 8 GPUs, 2 rows each).
TEST(PlanCli, AccumulationStepsArePricedOrRefusedAsTheRunWould) {
  Result two = wait(start(plan({"--seq-len", "4096", "--evaluate", "--gradient-accumulation-steps", "2"})));
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_NE(two.output.find(" ga2 "), std::string::npos) << two.output;
  for (const auto& [n, want] : std::vector<std::pair<std::string, std::string>>{
           {"0", "--gradient-accumulation-steps must be >= 1 (1: one forward + backward per step), got 0"},
           {"3", "--gradient-accumulation-steps 3 needs at least that many rows on every worker, but "
                 "--batch-size 16 over 8 worker(s) gives some only 2"}}) {
    Result r = wait(start(plan({"--seq-len", "4096", "--evaluate", "--gradient-accumulation-steps", n})));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("slidedp plan: error: " + want), std::string::npos) << r.output;
  }
  // without --evaluate the search prices its own passes, but a value no run takes is refused
  Result zero = wait(start(plan({"--seq-len", "4096", "--gradient-accumulation-steps", "0"})));
  EXPECT_EQ(zero.exit_code, 2) << zero.output;
  EXPECT_NE(zero.output.find("--gradient-accumulation-steps must be >= 1"), std::string::npos) << zero.output;
}

// --evaluate --update-tail-units M: priced (the label's "tailM"), or refused outside 0..L (the
// 72B model: 80 layers); without --evaluate a run's knob flags are named as the search's to
// choose, not silently ignored.
// What the run would refuse at start-up, the plan refuses first (exit 2, the flag or file named),
// before a calibration could spend half a minute on a run that cannot start.
TEST(PlanCli, ValuesTheRunRefusesAreRefusedBeforePlanning) {
  Result len = wait(start(plan({"--seq-len", "200000"})));  // max_position_embeddings 131072
  EXPECT_EQ(len.exit_code, 2) << len.output;
  EXPECT_NE(len.output.find("sequence length 200000 exceeds what the model config covers"), std::string::npos)
      << len.output;
  // a GPU memory budget beyond the machine file's card (140 GiB): refused as the worker refuses
  // it, not a plan that would run out of GPU memory
  Result budget = wait(start(plan({"--seq-len", "4096", "--gpu-memory-budget", "1000"})));
  EXPECT_EQ(budget.exit_code, 2) << budget.output;
  EXPECT_NE(budget.output.find("--gpu-memory-budget 1000 GiB exceeds the GPU's"), std::string::npos) << budget.output;
  // without a machine file (this machine would be calibrated, and the entry cached): refused
  // before calibration, so no cache file comes to exist
  const std::string cache = fmt::format("/tmp/slidedp-plan-cli-cal-{}.json", getpid());
  std::remove(cache.c_str());
  Result cal = wait(start({SLIDEDP_PLAN_BIN, "--model-config", std::string(SLIDEDP_SOURCE_DIR) +
                           "/tools/configs/qwen3-tiny.json", "--device", "cpu", "--batch-size", "4",
                           "--seq-len", "8192", "--calibration", cache}));  // covers 4096
  EXPECT_EQ(cal.exit_code, 2) << cal.output;
  EXPECT_NE(cal.output.find("sequence length 8192 exceeds what the model config covers"), std::string::npos)
      << cal.output;
  EXPECT_EQ(cal.output.find("calibrating"), std::string::npos) << cal.output;
  EXPECT_NE(::access(cache.c_str(), F_OK), 0) << "calibrated (and cached) first: " << cache;
  std::remove(cache.c_str());
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--max-kept-layers", "-7"}, {"--max-grad-norm", "nan"},
        {"--max-grad-norm", "-1"}, {"--micro-batch-rows", "-1"}, {"--leader-threads", "-3"},
        {"--leader-cores", "-4"}, {"--top", "0"}}) {
    std::vector<std::string> args = {"--seq-len", "4096", "--evaluate"};
    args.insert(args.end(), bad.begin(), bad.end());
    Result r = wait(start(plan(args)));
    EXPECT_EQ(r.exit_code, 2) << bad[0] << " " << bad[1] << ":\n" << r.output;
    EXPECT_NE(r.output.find(bad[0]), std::string::npos) << r.output;
    EXPECT_EQ(bestStepSeconds(r.output), -1) << r.output;
  }
  // a machine description that is a directory: a user error naming it, not a calibration failure
  const std::string dir = fmt::format("/tmp/slidedp-plan-cli-dir-{}", getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  Result m = wait(start({SLIDEDP_PLAN_BIN, "--model-config",
                         std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen2.5-72b.json", "--machine", dir,
                         "--batch-size", "16", "--seq-len", "4096"}));
  ::rmdir(dir.c_str());
  EXPECT_EQ(m.exit_code, 2) << m.output;
  EXPECT_NE(m.output.find("machine description '" + dir + "' cannot be read (not a readable file)"),
            std::string::npos) << m.output;
  EXPECT_EQ(m.output.find("measuring this machine"), std::string::npos) << m.output;  // (the old label)
}

// An option given twice, or a --config key with a list, is explained as the worker explains it
// (not CLI11's "At Most 1 required but received 2"), for the plan's own options and a run's.
TEST(PlanCli, ARepeatedOptionOrAConfigListIsNamed) {
  for (const std::string flag : {"--steps", "--seq-len"}) {
    Result r = wait(start(plan({flag, "5", flag, "6"})));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("slidedp plan: error: " + flag + " was given 2 times; give each option once"),
              std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("At Most 1"), std::string::npos) << r.output;
  }
  const std::string toml = fmt::format("/tmp/slidedp-plan-cli-list-{}.toml", getpid());
  for (const std::string key : {"lr", "seq-len"}) {
    { std::ofstream(toml) << key << " = [1, 2]\n"; }
    Result r = wait(start(plan({"--config", toml})));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("slidedp plan: error: --" + key + " has 2 values in the --config file; give it one"),
              std::string::npos) << r.output;
  }
  std::remove(toml.c_str());
}

// What the run itself refuses at start-up (checkSettings, the route and schedule names, a bad
// --route-sweep; checkRunAtSite and checkDataInputs: GPU-only flags on CPU workers, a tail or
// token beyond the model, a data file that does not exist) is refused by the plan too, before it calibrates this machine: the launcher
// plans a --policy auto run first, and that run would have been refused after the calibration.
TEST(PlanCli, TheRunsOwnRefusalsComeBeforeCalibration) {
  const std::string cache = fmt::format("/tmp/slidedp-plan-cli-run-{}.json", getpid());
  const std::string tiny = std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-tiny.json";
  const std::string toml = fmt::format("/tmp/slidedp-plan-cli-run-{}.toml", getpid());
  { std::ofstream(toml) << "lr = -0.5\n"; }
  struct Bad {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Bad& bad : {Bad{{"--lr", "-1"}, "--lr must be a finite number >= 0, got -1"},
                         Bad{{"--steps", "10", "--warmup", "50"}, "--warmup 50 is longer than the run (--steps 10)"},
                         // past int64 (read as 9223372036854775807): refused, not an ETA of -2147483648h
                         Bad{{"--steps", "99999999999999999999"}, "--steps 9223372036854775807 is beyond 10^12 steps"},
                         Bad{{"--route-sweep", "replicated/cpu+x@4"}, "unknown modifier '+x'"},
                         Bad{{"--delivery", "bogus"}, "unknown delivery route 'bogus'"},
                         Bad{{"--schedule", "sine"}, "unknown lr schedule 'sine'"},
                         Bad{{"--gradient-accumulation-steps", "4", "--gpus", "2"},
                             "--gradient-accumulation-steps 4 needs at least that many rows on every worker"},
                         Bad{{"--config", toml}, "--lr must be a finite number >= 0, got -0.5"},
                         // and what it refuses against its workers, its model and its data files
                         Bad{{"--gpu-profile", "/tmp/p.json"}, "--gpu-profile profiles GPU workers"},
                         Bad{{"--route-sweep", "replicated/cpu@1", "--gpus", "2"},
                             "'replicated/cpu@1': 1 rows is fewer than the 2 workers"},
                         Bad{{"--route-sweep", "replicated/cpu+tail3"},
                             "'replicated/cpu+tail3': +tail3 is more than the model's 2 decoder layers"},
                         Bad{{"--doc-start-token", "512"}, "--doc-start-token 512 is not a token of the model"},
                         Bad{{"--data", "synthetic-packed:9:3"}, "expected synthetic-packed:MIN:MAX"},
                         Bad{{"--data", "/nonexistent/tokens.bin"}, "data file /nonexistent/tokens.bin does not exist"},
                         Bad{{"--data", "reference:/nonexistent/ref.safetensors"}, "/nonexistent/ref.safetensors"},
                         Bad{{"--data", tiny}, "cannot tell the format of data file"}}) {
    std::remove(cache.c_str());
    std::vector<std::string> args = {SLIDEDP_PLAN_BIN, "--model-config", tiny, "--device", "cpu",
                                     "--batch-size", "4", "--seq-len", "64", "--calibration", cache};
    args.insert(args.end(), bad.args.begin(), bad.args.end());
    Result r = wait(start(args));
    EXPECT_EQ(r.exit_code, 2) << bad.args[0] << ":\n" << r.output;
    EXPECT_NE(r.output.find("slidedp plan: error: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(bad.says), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("calibrating"), std::string::npos) << r.output;
    EXPECT_NE(::access(cache.c_str(), F_OK), 0) << bad.args[0] << ": calibrated (and cached) first";
  }
  std::remove(toml.c_str());
  std::remove(cache.c_str());
  // the same run with valid values plans (against a machine file: nothing calibrated here)
  Result ok = wait(start(plan({"--seq-len", "4096", "--lr", "1e-5", "--steps", "100", "--warmup", "10",
                               "--schedule", "cosine", "--gpus", "1"})));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_GT(bestStepSeconds(ok.output), 0) << ok.output;
}

// reference: data runs its stored rows x tokens: the plan prices that shape where the flags do
// not give one, and refuses other flags as the run does.
TEST(PlanCli, ReferenceDataIsPlannedAtItsStoredShape) {
  const std::string ref = "reference:" + sharedDir() + "/reference/stories260K_kjv.reference.safetensors";
  const std::vector<std::string> base = {SLIDEDP_PLAN_BIN, "--model", stories(), "--machine",
                                         std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x8.json",
                                         "--gpus", "1", "--top", "1", "--steps", "2", "--data", ref};
  Result r = wait(start(base));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4 x 64 tokens per step"), std::string::npos) << r.output;
  std::vector<std::string> other = base;
  other.insert(other.end(), {"--batch-size", "8"});
  Result o = wait(start(other));
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("holds batches of 4 rows x 64 tokens, but --batch-size 8"), std::string::npos)
      << o.output;
  std::vector<std::string> longer = base;
  *std::find(longer.begin(), longer.end(), "2") = "999";  // --steps 999
  Result l = wait(start(longer));
  EXPECT_EQ(l.exit_code, 2) << l.output;
  EXPECT_NE(l.output.find("but the run has 999 steps"), std::string::npos) << l.output;
  // a plan for another machine (--machine) takes a data file that is not here: it may be there
  std::vector<std::string> elsewhere = base;
  elsewhere.back() = "/nonexistent/on-the-cluster/train.tok";
  Result e = wait(start(elsewhere));
  EXPECT_EQ(e.exit_code, 0) << e.output;
}

TEST(PlanCli, TheUpdateTailIsPricedOrRefusedAndKnobsWithoutEvaluateAreNamed) {
  Result ten = wait(start(plan({"--seq-len", "4096", "--evaluate", "--update-tail-units", "10"})));
  ASSERT_EQ(ten.exit_code, 0) << ten.output;
  EXPECT_NE(ten.output.find(" tail10 "), std::string::npos) << ten.output;
  EXPECT_EQ(ten.output.find("only orders the hand-offs"), std::string::npos) << ten.output;
  // where the runtime only reorders the hand-offs (here: the gpu reduction route), so says the plan
  Result gpu = wait(start(plan({"--seq-len", "4096", "--evaluate", "--update-tail-units", "10", "--reduction", "gpu"})));
  ASSERT_EQ(gpu.exit_code, 0) << gpu.output;
  EXPECT_NE(gpu.output.find("note: tail10 only orders the hand-offs here"), std::string::npos) << gpu.output;
  // beyond the model's layers: the plan names them; negative: the run's own range check says it
  for (const auto& [m, says] : {std::pair<std::string, std::string>{"81", "--update-tail-units 81 is outside "
                                                                          "0..80 (the model's decoder layers)"},
                                {"-1", "--update-tail-units: must be a whole number of decoder layers"}}) {
    Result r = wait(start(plan({"--seq-len", "4096", "--evaluate", "--update-tail-units", m})));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("slidedp plan: error: " + says), std::string::npos) << r.output;
  }
  Result knobs = wait(start(plan({"--seq-len", "4096", "--window", "3", "--update-tail-units", "4"})));
  ASSERT_EQ(knobs.exit_code, 0) << knobs.output;
  EXPECT_NE(knobs.output.find("note: --window, --update-tail-units given: the search chooses these knobs "
                              "itself"), std::string::npos) << knobs.output;
  Result none = wait(start(plan({"--seq-len", "4096"})));
  EXPECT_EQ(none.output.find("note:"), std::string::npos) << none.output;
}

TEST(PlanCli, NodesArePricedWithTheNetworkOrRefusedSayingWhatToAdd) {
  Result one = wait(start(plan({"--seq-len", "4096"})));
  Result two = wait(start(plan({"--seq-len", "4096", "--nodes", "2", "--network-gbps", "400"})));
  ASSERT_EQ(one.exit_code, 0) << one.output;
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_NE(two.output.find("nodes: 2, state sharded across them, network 400 Gb/s per node"),
            std::string::npos) << two.output;
  EXPECT_NE(bestStepSeconds(two.output), bestStepSeconds(one.output)) << one.output << two.output;
  Result no_rate = wait(start(plan({"--seq-len", "4096", "--nodes", "2"})));
  EXPECT_EQ(no_rate.exit_code, 2) << no_rate.output;
  EXPECT_NE(no_rate.output.find("--nodes 2 needs the network's rate: --network-gbps"), std::string::npos)
      << no_rate.output;
}

// --nodes 0 (the default) takes the machine file's network.nodes, for the run's own checks too:
// a sweep that changes the update tail between variants, which one node only does, is refused
// for a 2-node machine file as for --nodes 2.
// On a machine without GPUs (a login node) --device auto plans CPU workers: a GPU-only flag is
// refused there with the way to plan a GPU machine from it (its description, --machine), which
// --device cpu, said on purpose, does not get.
TEST(PlanCli, AGpuOnlyFlagWithoutAGpuPointsToTheMachineFile) {
  if (::access("/dev/nvidiactl", F_OK) == 0) GTEST_SKIP() << "this machine has a GPU: --device auto plans it";
  const std::string tiny = std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-tiny.json";
  for (const char* device : {"auto", "cpu"}) {
    Result r = wait(start({SLIDEDP_PLAN_BIN, "--model-config", tiny, "--device", device, "--gpu-profile", "/tmp/p.json"}));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--gpu-profile profiles GPU workers"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("plan a GPU machine from here with its description: --machine FILE") != std::string::npos,
              std::string(device) == "auto") << device << ":\n" << r.output;
  }
}

TEST(PlanCli, TheMachineFilesNodeCountIsTheRunsNodeCount) {
  auto m = nlohmann::json::parse(readFile(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x8.json"));
  m["network"] = {{"nodes", 2}, {"gbps", 400}};
  const std::string file = fmt::format("/tmp/slidedp-plan-2nodes-{}.json", getpid());
  std::ofstream(file) << m.dump(2);
  std::vector<std::string> a = plan({"--seq-len", "4096", "--route-sweep", "sharded/gpu@16,sharded/gpu+tail4@16"});
  *(std::find(a.begin(), a.end(), "--machine") + 1) = file;
  Result r = wait(start(a));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("changes the update tail between variants, which one node only does"), std::string::npos)
      << r.output;
  std::remove(file.c_str());
}

// Without --gpus the plan is for the machine's workers (the --machine file's 8 GPUs here), and
// the run's checks that need their count take it too: 16 rows over 8 workers leave 2 a worker,
// fewer than 4 accumulation steps (the checks were skipped before, and the plan went on).
TEST(PlanCli, WithoutGpusTheMachinesWorkersAreTheRunsWorkers) {
  Result r = wait(start(plan({"--seq-len", "4096", "--gradient-accumulation-steps", "4"})));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--gradient-accumulation-steps 4 needs at least that many rows on every worker, but "
                          "--batch-size 16 over 8 worker(s) gives some only 2"), std::string::npos) << r.output;
  Result ok = wait(start(plan({"--seq-len", "4096", "--gradient-accumulation-steps", "2"})));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

TEST(PlanCli, TheNodesSweepTableHasItsColumnsUnderItsHeader) {
  // The layout column is as wide as "fully-sharded": every row's step time ends where the
  // header's "step_s" does (it was 3 characters off once the fully-sharded rows came).
  Result r = wait(start(plan({"--seq-len", "4096", "--network-gbps", "400", "--nodes-sweep", "1,2"})));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream lines(r.output);
  std::string line;
  size_t step_end = std::string::npos;
  int rows = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("nodes layout", 0) == 0) {
      step_end = line.find("step_s") + 6;
      continue;
    }
    std::smatch m;
    if (step_end == std::string::npos ||
        !std::regex_search(line, m, std::regex(R"(^ +[0-9]+ (-|sharded|fully-sharded|replicated) +([0-9.]+) )")))
      continue;
    EXPECT_EQ(static_cast<size_t>(m.position(2) + m.length(2)), step_end) << line << "\n" << r.output;
    ++rows;
  }
  EXPECT_EQ(rows, 4) << r.output;  // 1 node, then 2 nodes x 3 layouts
  EXPECT_NE(r.output.find("    2 fully-sharded "), std::string::npos) << r.output;
}
