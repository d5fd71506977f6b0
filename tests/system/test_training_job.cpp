// The training job as a user runs it (slidedp_worker --model ... under mpirun): checkpoints,
// bit-identical resume, graceful stop on SIGTERM, a config file overridden by flags.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/job_log.h"
#include "common/subprocess.h"
#include "formats/safetensors.h"
#include "shm/segment.h"

using namespace std::chrono;
using namespace slidedp::test;

namespace {
std::vector<std::string> train(std::vector<std::string> extra) {
  std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np",
                                "3", SLIDEDP_WORKER_BIN, "--device", "cpu", "--model", stories(),
                                "--batch-size", "4", "--seq-len", "64", "--chunk-numel", "5000",
                                "--leader-threads", "1"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}
std::string tmpDir(const char* tag) {
  const std::string d = fmt::format("/tmp/slidedp-systest-{}-{}", tag, getpid());
  std::system(("rm -rf " + d).c_str());
  return d;
}
/// Two runs of the same `steps` steps (losses by step, optimizer.safetensors bytes) trained
/// alike: byte-identical state and equal losses when `bitwise`; otherwise equal losses before
/// step `close_from` and losses within 1e-6 (relative) from it on.
void expectSameTraining(const std::string& name, const std::map<int, std::string>& loss_a,
                        const std::string& state_a, const std::map<int, std::string>& loss_b,
                        const std::string& state_b, int steps, bool bitwise, int close_from) {
  ASSERT_EQ(loss_a.size(), static_cast<size_t>(steps)) << name;
  ASSERT_EQ(loss_b.size(), static_cast<size_t>(steps)) << name;
  ASSERT_GT(state_a.size(), 1000000u) << name;
  if (bitwise) {
    EXPECT_TRUE(state_a == state_b) << name << ": the optimizer state differs";
    for (int s = 1; s <= steps; ++s) EXPECT_EQ(loss_a.at(s), loss_b.at(s)) << name << ", step " << s;
    return;
  }
  for (int s = 1; s <= steps; ++s) {
    if (s < close_from) {
      EXPECT_EQ(loss_a.at(s), loss_b.at(s)) << name << ", step " << s;
      continue;
    }
    const double a = std::stod(loss_a.at(s)), b = std::stod(loss_b.at(s));
    EXPECT_NEAR(b, a, 1e-6 * a) << name << ", step " << s;
  }
}
}  // namespace

TEST(TrainingJob, SixStepsEqualThreePlusResumePlusThreeBitForBit) {
  const std::string a = tmpDir("straight"), b = tmpDir("resumed");
  Result r1 = wait(start(train({"--steps", "6", "--checkpoint-dir", a, "--metrics", a + ".csv"})));
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  Result r2 = wait(start(train({"--steps", "3", "--checkpoint-dir", b, "--metrics", b + ".csv"})));
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  Result r3 = wait(start(train({"--steps", "6", "--checkpoint-dir", b, "--resume", "auto",
                                "--metrics", b + ".csv"})));
  ASSERT_EQ(r3.exit_code, 0) << r3.output;
  EXPECT_NE(r3.output.find("resumed from " + b + " at step 4"), std::string::npos) << r3.output;
  // The full optimizer state after step 6 (FP32 master weights, m, v) is byte-identical.
  const std::string sa = readFile(a + "/step-00000006/optimizer.safetensors");
  const std::string sb = readFile(b + "/step-00000006/optimizer.safetensors");
  ASSERT_GT(sa.size(), 1000000u);
  EXPECT_TRUE(sa == sb) << "state after 6 steps differs between straight and resumed runs";
  // And so are the losses of steps 4..6 (printed with 9 significant digits).
  const auto la = metricsLosses(a + ".csv"), lb = metricsLosses(b + ".csv");
  for (int s = 1; s <= 6; ++s) EXPECT_EQ(la.at(s), lb.at(s)) << "step " << s;
  std::system(("rm -rf " + a + " " + b + " " + a + ".csv " + b + ".csv").c_str());
}

// The row-split embedding update (runtime/token_rows.h) against the dense schedule, tied (the
// stories260K model) and untied (a random Llama of the same vocabulary): the same AdamW step on
// every row, so every step's loss and gradient norm agree to fp32 summation order. 2e-6
// relative: the token rows' gradient is summed as (head shares) + (lookup shares) instead of
// per-worker totals, and the norm's dense-pass part is taken out by a subtraction; a row left
// out or updated twice moves the next step's loss by far more (vocabulary 512, 2 x 4 x 64
// tokens a step, so some rows are outside the token rows and some inside).
TEST(TrainingJob, RowSplitEmbeddingUpdateMatchesDense) {
  const std::string untied = fmt::format("/tmp/slidedp-systest-untied-{}.json", getpid());
  {
    const char* src = std::getenv("SLIDEDP_SOURCE_DIR");
    ASSERT_NE(src, nullptr) << "SLIDEDP_SOURCE_DIR is set by CTest";
    std::string cfg = readFile(std::string(src) + "/tools/configs/kjv-tiny-llama.json");
    const std::string key = "\"tie_word_embeddings\": true";
    cfg.replace(cfg.find(key), key.size(), "\"tie_word_embeddings\": false");
    std::ofstream(untied) << cfg;
  }
  for (const bool tied : {true, false}) {
    std::vector<std::string> model = {"--model", stories()};
    if (!tied) model = {"--model-config", untied};  // random init, synthetic data
    std::map<std::string, std::map<int, std::string>> loss, norm;
    for (const std::string mode : {"dense", "split"}) {
      const std::string csv = fmt::format("/tmp/slidedp-systest-emb-{}-{}.csv", mode, getpid());
      std::vector<std::string> a = train({"--steps", "4", "--metrics", csv, "--embedding-update", mode});
      const auto m = std::find(a.begin(), a.end(), "--model");
      a.erase(m, m + 2);
      a.insert(a.end(), model.begin(), model.end());
      Result r = wait(start(a));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_NE(r.output.find(mode + " embedding update"), std::string::npos) << r.output;
      loss[mode] = metricsLosses(csv);
      std::istringstream in(readFile(csv));
      std::string line, header;
      std::getline(in, header);
      size_t col = 0;
      {
        std::stringstream hs(header);
        std::string h;
        for (size_t i = 0; std::getline(hs, h, ','); ++i)
          if (h == "grad_norm") col = i;
      }
      ASSERT_GT(col, 0u) << header;
      while (std::getline(in, line)) {
        std::vector<std::string> cols;
        std::stringstream ls(line);
        for (std::string c; std::getline(ls, c, ',');) cols.push_back(c);
        norm[mode][std::stoi(cols[0])] = cols.at(col);
      }
      std::remove(csv.c_str());
    }
    ASSERT_EQ(loss["dense"].size(), 4u);
    for (int s = 1; s <= 4; ++s) {
      const double ld = std::stod(loss["dense"].at(s)), lsp = std::stod(loss["split"].at(s));
      const double nd = std::stod(norm["dense"].at(s)), nsp = std::stod(norm["split"].at(s));
      EXPECT_NEAR(lsp, ld, 2e-6 * ld) << (tied ? "tied" : "untied") << ", step " << s;
      EXPECT_NEAR(nsp, nd, 2e-6 * nd) << (tied ? "tied" : "untied") << ", step " << s;
    }
  }
  std::remove(untied.c_str());
}

// Gradient buckets (--grad-buckets split: a layer's MLP gradient handed off before its
// attention's backward, ChunkPlan::bucket_splits) change when chunks cross, not what the leader
// computes: each element's AdamW step sees the same summed gradient, so the optimizer state
// after 4 steps is byte-identical to whole-layer hand-offs. 2 workers, the cpu route (buckets
// go early; with 2 micro-batches only after the last one's MLP backward) and the route that
// reduces among the workers (`gpu`: MPI_Reduce_scatter_block on CPU workers, the first bucket
// reduce-scattered on its own; with 2 workers a sum of two is the same in either order, so
// the state stays byte-identical). With exact clipping the global
// norm is summed in another chunk order: losses agree to 1e-6.
TEST(TrainingJob, GradientBucketsChangeNothingButTheOrder) {
  struct Case {
    std::string name;
    std::vector<std::string> flags;
    bool bitwise;
  };
  const std::vector<Case> cases = {
      {"cpu", {"--reduction", "cpu"}, true},
      {"cpu-micro", {"--reduction", "cpu", "--micro-batch-rows", "1"}, true},
      {"reduce-scatter", {"--reduction", "gpu"}, true},  // MPI_Reduce_scatter_block on CPU workers
      {"cpu-clip", {"--reduction", "cpu", "--max-grad-norm", "0.5"}, false}};
  for (const Case& c : cases) {
    std::map<std::string, std::map<int, std::string>> loss;
    std::map<std::string, std::string> state;
    for (const std::string mode : {"whole", "split"}) {
      const std::string d = tmpDir(("buckets-" + c.name + "-" + mode).c_str());
      std::vector<std::string> extra = {"--steps", "4", "--grad-buckets", mode, "--checkpoint-dir", d,
                                        "--checkpoint-every", "4", "--metrics", d + ".csv",
                                        "--trace", d + ".trace.json"};
      extra.insert(extra.end(), c.flags.begin(), c.flags.end());
      Result r = wait(start(train(extra)));
      ASSERT_EQ(r.exit_code, 0) << c.name << " " << mode << "\n" << r.output;
      // cpu and mpi alike: the plan is bucketed (split) or not (whole)
      EXPECT_NE(r.output.find(mode == "split" ? "gradient buckets MLP first" : "gradient buckets whole layer"),
                std::string::npos) << r.output;
      // The hand-off thread's spans: the first buckets went on their own, before the rest of
      // their unit (every route here sends them early).
      const std::string trace = readFile(d + ".trace.json");
      ASSERT_NE(trace.find("hand-off unit"), std::string::npos) << c.name << " " << mode;
      EXPECT_EQ(trace.find("(first bucket)") != std::string::npos, mode == "split")
          << c.name << " " << mode;
      loss[mode] = metricsLosses(d + ".csv");
      state[mode] = readFile(d + "/step-00000004/optimizer.safetensors");
      std::system(("rm -rf " + d + " " + d + ".csv " + d + ".trace.json").c_str());
    }
    expectSameTraining(c.name, loss["whole"], state["whole"], loss["split"], state["split"], 4, c.bitwise, 1);
  }
}

// --gradient-accumulation-steps N runs N forward + backward passes per step over consecutive
// parts of each worker's rows, the layers delivered again for each, the gradients summed on the
// worker and handed off after the last. Against micro-batches of the same rows (which go
// layer by layer in one pass) every unit's gradient is summed in the same order, so with the
// row-split embedding update (the cpu route's default) the optimizer state is byte-identical:
// 2 workers of 2 rows (2 passes of 1 row), and 3 rows in passes of 1 and 2 rows (micro-batches
// of 1 row in each). The dense embedding's gradient (the dense update, and the reduce-scatter
// route, which runs it) interleaves the tied LM head's share with the lookup's pass by pass
// instead of head shares first, so it is rounded differently: the losses agree to 1e-6.
TEST(TrainingJob, GradientAccumulationStepsMatchMicroBatches) {
  struct Case {
    std::string name;
    std::vector<std::string> common, micro, passes;
    bool bitwise;
    std::string batch = "4";
  };
  const std::vector<Case> cases = {
      {"cpu", {"--reduction", "cpu"}, {"--micro-batch-rows", "1"}, {"--gradient-accumulation-steps", "2"}, true},
      {"uneven", {"--reduction", "cpu"}, {"--micro-batch-rows", "1"},
       {"--gradient-accumulation-steps", "2", "--micro-batch-rows", "1"}, true, "6"},
      {"reduce-scatter", {"--reduction", "gpu"}, {"--micro-batch-rows", "1"}, {"--gradient-accumulation-steps", "2"},
       false},
      {"dense-embedding", {"--embedding-update", "dense"}, {"--micro-batch-rows", "1"},
       {"--gradient-accumulation-steps", "2"}, false}};
  for (const Case& c : cases) {
    std::map<std::string, std::map<int, std::string>> loss;
    std::map<std::string, std::string> state;
    for (const std::string mode : {"micro", "passes"}) {
      const std::string d = tmpDir(("accum-" + c.name + "-" + mode).c_str());
      std::vector<std::string> extra = {"--steps", "3", "--checkpoint-dir", d, "--checkpoint-every", "3",
                                        "--metrics", d + ".csv", "--trace", d + ".trace.json"};
      extra.insert(extra.end(), c.common.begin(), c.common.end());
      const auto& flags = mode == "micro" ? c.micro : c.passes;
      extra.insert(extra.end(), flags.begin(), flags.end());
      std::vector<std::string> args = train(extra);
      *(std::find(args.begin(), args.end(), "--batch-size") + 1) = c.batch;
      Result r = wait(start(args));
      ASSERT_EQ(r.exit_code, 0) << c.name << " " << mode << "\n" << r.output;
      EXPECT_EQ(r.output.find("2 gradient accumulation steps") != std::string::npos, mode == "passes")
          << r.output;
      // the passes' spans, the second pass's backward of every layer among them
      const std::string trace = readFile(d + ".trace.json");
      ASSERT_NE(trace.find("backward unit 1"), std::string::npos) << c.name << " " << mode;
      EXPECT_EQ(trace.find("pass 2: backward unit 1") != std::string::npos, mode == "passes") << c.name;
      EXPECT_EQ(trace.find("pass 3:"), std::string::npos) << c.name;
      loss[mode] = metricsLosses(d + ".csv");
      state[mode] = readFile(d + "/step-00000003/optimizer.safetensors");
      std::system(("rm -rf " + d + " " + d + ".csv " + d + ".trace.json").c_str());
    }
    // step 1 runs the same weights: its loss is the same either way
    expectSameTraining(c.name, loss["micro"], state["micro"], loss["passes"], state["passes"], 3, c.bitwise, 2);
  }
}

// A --route-sweep variant's +gaN reaches the workers: the second variant's traced step runs 2
// passes (its steps are 3 and 4), the first ran one.
TEST(TrainingJob, RouteSweepVariantRunsItsAccumulationSteps) {
  const std::string d = tmpDir("accum-sweep");
  for (const int traced : {2, 4}) {
    const std::string trace = fmt::format("{}-{}.trace.json", d, traced);
    Result r = wait(start(train({"--steps", "2", "--route-sweep", "replicated/cpu@4,replicated/cpu+ga2@4",
                                 "--trace", trace, "--trace-step", std::to_string(traced)})));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("replicated/cpu+ga2@4"), std::string::npos) << r.output;
    const std::string t = readFile(trace);
    ASSERT_NE(t.find("backward unit 1"), std::string::npos) << traced;
    EXPECT_EQ(t.find("pass 2: backward unit 1") != std::string::npos, traced == 4) << traced;
    std::remove(trace.c_str());
  }
  // A variant without +gaN runs the job's --gradient-accumulation-steps, and its label says so;
  // +ga1 runs one pass.
  const std::string trace = d + "-inherited.trace.json";
  Result r = wait(start(train({"--steps", "1", "--gradient-accumulation-steps", "2", "--route-sweep",
                               "replicated/cpu@4,replicated/cpu+ga1@4", "--trace", trace, "--trace-step", "1"})));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("| replicated/cpu+ga2@4 |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| replicated/cpu+ga1@4 |"), std::string::npos) << r.output;
  EXPECT_NE(readFile(trace).find("pass 2: backward unit 1"), std::string::npos);
  std::remove(trace.c_str());
}

// A checkpoint file's tensors by name (their bytes): the files of runs whose leaders update the
// units in another order hold the same tensors at other offsets.
std::map<std::string, std::string> tensorsByName(const std::string& path) {
  const auto f = slidedp::formats::SafetensorsFile::open(path);
  std::map<std::string, std::string> out;
  for (const auto& t : f.tensors())
    out[t.name] = std::string(reinterpret_cast<const char*>(f.data(t)), t.nbytes());
  return out;
}

// --update-tail-units m hands layers 1..m off after the embedding, in forward order, and (cpu
// route, one accumulation step) agrees on the step before the leader updates them, so the next
// step's forward runs beside that update. The update is the same: every tensor of the optimizer
// state is byte-identical to the backward order's and so is every loss, over 6 steps with a
// streamed checkpoint after step 3 (its writer gates the tail's updates), with the whole model
// in the tail, with 2 accumulation steps (the order only; no early agreement), and resumed from
// step 3 in the tail's mode. The stories model has 5 decoder layers.
TEST(TrainingJob, UpdateTailTrainsAsTheBackwardOrder) {
  auto run = [&](const std::string& tag, std::vector<std::string> flags) {
    const std::string d = tmpDir(("tail-" + tag).c_str());
    std::vector<std::string> extra = {"--steps", "6", "--checkpoint-dir", d, "--checkpoint-every", "3",
                                      "--metrics", d + ".csv"};
    extra.insert(extra.end(), flags.begin(), flags.end());
    Result r = wait(start(train(extra)));
    EXPECT_EQ(r.exit_code, 0) << tag << "\n" << r.output;
    // the start-up line says whether the next forward runs beside the tail's update
    const bool tail = std::find(flags.begin(), flags.end(), "--update-tail-units") != flags.end();
    const bool accum = std::find(flags.begin(), flags.end(), "--gradient-accumulation-steps") != flags.end();
    EXPECT_EQ(r.output.find("update tail: layers 1..") != std::string::npos, tail) << tag;
    EXPECT_EQ(r.output.find("the next forward runs beside their update") != std::string::npos, tail && !accum)
        << tag;
    auto loss = metricsLosses(d + ".csv");
    auto state = tensorsByName(d + "/step-00000006/optimizer.safetensors");
    return std::make_tuple(d, loss, state);
  };
  const auto [d0, loss0, state0] = run("none", {});
  ASSERT_EQ(loss0.size(), 6u);
  ASSERT_EQ(state0.size(), 21u) << "master, moments of 7 units";
  for (const auto& [tag, flags] :
       std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"3", {"--update-tail-units", "3"}},
           {"all", {"--update-tail-units", "5"}},
           {"3-accum", {"--update-tail-units", "3", "--gradient-accumulation-steps", "2"}}}) {
    auto [d, loss, state] = run(tag, flags);
    if (tag == "3-accum") {  // against its own backward order
      auto [da, la, sa] = run("accum", {"--gradient-accumulation-steps", "2"});
      EXPECT_EQ(loss, la) << tag;
      EXPECT_TRUE(state == sa) << tag << ": the optimizer state differs";
      std::system(("rm -rf " + da + " " + da + ".csv").c_str());
    } else {
      EXPECT_EQ(loss, loss0) << tag;
      EXPECT_TRUE(state == state0) << tag << ": the optimizer state differs";
    }
    if (tag == "3") {
      // resumed from its step-3 checkpoint, in the tail's mode: the same step 6
      const std::string d2 = tmpDir("tail-resumed");
      Result r = wait(start(train({"--steps", "6", "--update-tail-units", "3", "--resume",
                                   d + "/step-00000003", "--checkpoint-dir", d2})));
      EXPECT_EQ(r.exit_code, 0) << r.output;
      EXPECT_TRUE(tensorsByName(d2 + "/step-00000006/optimizer.safetensors") == state0)
          << "the resumed run's optimizer state differs";
      std::system(("rm -rf " + d2).c_str());
    }
    std::system(("rm -rf " + d + " " + d + ".csv").c_str());
  }
  std::system(("rm -rf " + d0 + " " + d0 + ".csv").c_str());
}

// bf16 compute (GPU workers' default; --precision bf16 here on CPU workers) keeps master, m and
// v in the leader's own memory (shm/leader_regions.h), out of the shared segment. The training
// is the same as with them in the segment (SLIDEDP_OPTIMIZER_STATE=shared): every loss and
// every optimizer-state byte, through a checkpoint and a resume from it; the start-up line
// says where they are.
TEST(TrainingJob, OptimizerStateInTheLeadersMemoryTrainsAsInTheSegment) {
  const std::string a = tmpDir("state-leader"), b = tmpDir("state-shared"), c = tmpDir("state-resumed");
  auto run = [&](const char* placement, std::vector<std::string> extra) {
    std::vector<std::string> args = {"/usr/bin/env", std::string("SLIDEDP_OPTIMIZER_STATE=") + placement};
    for (const std::string& x : train({"--precision", "bf16", "--lr", "1e-3"})) args.push_back(x);
    args.insert(args.end(), extra.begin(), extra.end());
    return wait(start(args));
  };
  Result ra = run("leader", {"--steps", "4", "--checkpoint-dir", a, "--checkpoint-every", "2", "--metrics", a + ".csv"});
  ASSERT_EQ(ra.exit_code, 0) << ra.output;
  EXPECT_NE(ra.output.find("master, m and v ("), std::string::npos) << ra.output;
  EXPECT_NE(ra.output.find(") in the leader's own memory"), std::string::npos) << ra.output;
  Result rb = run("shared", {"--steps", "4", "--checkpoint-dir", b, "--metrics", b + ".csv"});
  ASSERT_EQ(rb.exit_code, 0) << rb.output;
  EXPECT_EQ(rb.output.find("in the leader's own memory"), std::string::npos) << rb.output;
  const auto la = metricsLosses(a + ".csv");
  ASSERT_EQ(la.size(), 4u);
  EXPECT_EQ(la, metricsLosses(b + ".csv"));
  const auto sa = tensorsByName(a + "/step-00000004/optimizer.safetensors");
  EXPECT_TRUE(sa == tensorsByName(b + "/step-00000004/optimizer.safetensors")) << "the optimizer state differs";
  Result rc = run("leader", {"--steps", "4", "--resume", a + "/step-00000002", "--checkpoint-dir", c});
  ASSERT_EQ(rc.exit_code, 0) << rc.output;
  EXPECT_TRUE(tensorsByName(c + "/step-00000004/optimizer.safetensors") == sa) << "resumed from step 2";
  Result bad = run("elsewhere", {"--steps", "1"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("SLIDEDP_OPTIMIZER_STATE=elsewhere: expected leader"), std::string::npos) << bad.output;
  std::system(("rm -rf " + a + " " + b + " " + c + " " + a + ".csv " + b + ".csv").c_str());
}

// A --route-sweep variant's +tailM switches the update tail between variants (the chunk plan
// reordered between steps, ChunkPlan::withTail, once the hand-offs are in and a streamed
// checkpoint is written): none, 3, all 5 layers, none again, 2 steps each, with a streamed
// checkpoint every 3 steps (in flight across the switch after step 6). The training is the
// same as 8 steps without a tail: every loss and every optimizer-state tensor byte-identical.
// With a cosine schedule: the sweep's schedule spans its 4 x 2 steps, as the plain run's 8.
TEST(TrainingJob, RouteSweepVariantsSwitchTheUpdateTail) {
  const std::string a = tmpDir("tail-sweep"), b = tmpDir("tail-sweep-plain");
  const std::vector<std::string> cosine = {"--schedule", "cosine", "--warmup", "2", "--lr", "1e-3"};
  auto with = [&](std::vector<std::string> x) {
    x.insert(x.end(), cosine.begin(), cosine.end());
    return train(x);
  };
  Result ra = wait(start(with({"--steps", "2", "--route-sweep",
                               "replicated/cpu@4,replicated/cpu+tail3@4,replicated/cpu+tail5@4,replicated/cpu@4",
                               "--checkpoint-dir", a, "--checkpoint-every", "3", "--metrics", a + ".csv"})));
  ASSERT_EQ(ra.exit_code, 0) << ra.output;
  EXPECT_NE(ra.output.find("| replicated/cpu+tail3@4 |"), std::string::npos) << ra.output;
  EXPECT_NE(ra.output.find("replicated/cpu+tail3@4: update tail: layers 1..3 after the embedding (the next "
                           "forward runs beside their update)"), std::string::npos) << ra.output;
  Result rb = wait(start(with({"--steps", "8", "--checkpoint-dir", b, "--metrics", b + ".csv"})));
  ASSERT_EQ(rb.exit_code, 0) << rb.output;
  const auto la = metricsLosses(a + ".csv"), lb = metricsLosses(b + ".csv");
  ASSERT_EQ(la.size(), 8u);
  EXPECT_EQ(la, lb);
  const auto lra = metricsColumn(a + ".csv", "lr"), lrb = metricsColumn(b + ".csv", "lr");
  ASSERT_EQ(lra.size(), 8u);
  EXPECT_EQ(lra, lrb) << "the sweep's learning rates are not the 8-step schedule's";
  EXPECT_GT(std::stod(lra.at(3)), std::stod(lra.at(8))) << "the cosine restarted between the sweep's variants";
  const auto sa = tensorsByName(a + "/step-00000008/optimizer.safetensors");
  ASSERT_EQ(sa.size(), 21u);
  EXPECT_TRUE(sa == tensorsByName(b + "/step-00000008/optimizer.safetensors")) << "the optimizer state differs";
  // the step-6 checkpoint, written across the switch, is the plain run's step 6 (resumed: the same step 8)
  const std::string c = tmpDir("tail-sweep-resumed");
  Result rc = wait(start(with({"--steps", "8", "--resume", a + "/step-00000006", "--checkpoint-dir", c})));
  EXPECT_EQ(rc.exit_code, 0) << rc.output;
  EXPECT_EQ(rc.output.find("the LR schedule changes"), std::string::npos) << "the sweep ran 8 steps\n" << rc.output;
  EXPECT_TRUE(tensorsByName(c + "/step-00000008/optimizer.safetensors") == sa) << "resumed from step 6";
  // out of the model's layers, or malformed: refused before start-up
  for (const auto& [item, want] : std::vector<std::pair<std::string, std::string>>{
           {"replicated/cpu+tail6@4", "+tail6 is more than the model's 5 decoder layers"},
           {"replicated/cpu+tailx@4", "'+tailx': +tailM takes a whole number of decoder layers"},
           {"replicated/cpu+tail1+tail2@4", "give +tailM once"}}) {
    Result r = wait(start(train({"--steps", "1", "--route-sweep", item})));
    EXPECT_EQ(r.exit_code, 2) << item << "\n" << r.output;
    EXPECT_NE(r.output.find(want), std::string::npos) << item << "\n" << r.output;
  }
  std::system(("rm -rf " + a + " " + a + ".csv " + b + " " + b + ".csv " + c).c_str());
}

// Refused before start-up (before the data is read): more tail layers than the model has, and
// what is not a whole number of layers (CLI11's own range check would print DBL_MAX).
TEST(TrainingJob, UpdateTailBeyondTheModelIsRefused) {
  Result r = wait(start(train({"--steps", "1", "--update-tail-units", "6"})));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--update-tail-units 6 is outside 0..5"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("data:"), std::string::npos) << "refused only after the data was read\n" << r.output;
  for (const char* bad : {"-1", "2.5", "x"}) {
    Result b = wait(start(train({"--steps", "1", "--update-tail-units", bad})));
    EXPECT_NE(b.exit_code, 0) << bad << "\n" << b.output;
    EXPECT_NE(b.output.find("must be a whole number of decoder layers"), std::string::npos) << bad << "\n" << b.output;
    EXPECT_EQ(b.output.find("179769"), std::string::npos) << bad << "\n" << b.output;
  }
}

TEST(TrainingJob, SigtermCheckpointsAtTheStepEndAndTheRunResumes) {
  const std::string d = tmpDir("sigterm");
  const std::string pids_file = d + ".pids";
  std::remove(pids_file.c_str());
  Proc p = start(train({"--steps", "100000", "--checkpoint-dir", d, "--pid-file", pids_file}));
  const auto pids = waitForPids(pids_file, 3);
  ASSERT_EQ(pids.size(), 3u);
  const auto until = steady_clock::now() + seconds(60);
  while (readFile(p.log).find("step 3/") == std::string::npos && steady_clock::now() < until)
    std::this_thread::sleep_for(milliseconds(20));
  for (pid_t pid : pids) kill(pid, SIGTERM);  // what a batch system sends before preemption
  Result r = wait(p, 60);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("stopped after step"), std::string::npos) << r.output;
  // Said once per node, by the first rank the signal reached (not once per rank).
  EXPECT_EQ(countOccurrences(r.output, "slidedp: stop requested (signal)"), 1) << r.output;
  const std::string latest = readFile(d + "/latest");
  ASSERT_EQ(latest.rfind("step-", 0), 0u) << r.output;
  const int stopped_at = std::stoi(latest.substr(5));
  Result again = wait(start(train({"--steps", std::to_string(stopped_at + 2), "--checkpoint-dir", d,
                                   "--resume", d})));
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find(fmt::format("at step {}", stopped_at + 1)), std::string::npos) << again.output;
  std::system(("rm -rf " + d + " " + pids_file).c_str());
}

// A stop during a held-out evaluation ends it at the next eval batch (agreed by every rank: here
// the signal reaches the leader alone, which takes no part in the evaluation's work),
// not after the whole eval set: here 8,835 batches (the whole corpus, --eval-batches 0), which
// the stop used to wait for. The step before it is checkpointed; no partial eval loss is shown.
TEST(TrainingJob, AStopDuringTheEvaluationEndsItAtTheNextBatch) {
  const std::string d = tmpDir("evalstop");
  const std::string pids_file = d + ".pids";
  std::remove(pids_file.c_str());
  const std::string kjv = sharedDir() + "/data/kjv.txt";
  Proc p = start(train({"--steps", "100000", "--data", kjv, "--eval-data", kjv, "--eval-every", "2",
                        "--eval-batches", "0", "--checkpoint-dir", d, "--pid-file", pids_file}));
  const auto pids = waitForPids(pids_file, 3);
  ASSERT_EQ(pids.size(), 3u);
  const auto until = steady_clock::now() + seconds(60);
  while (readFile(p.log).find("step 1/") == std::string::npos && steady_clock::now() < until)
    std::this_thread::sleep_for(milliseconds(20));
  std::this_thread::sleep_for(milliseconds(500));  // into the evaluation after step 2
  const auto t0 = steady_clock::now();
  kill(pids[0], SIGTERM);  // the leader alone (world rank 0): it does not evaluate, yet stops it
  Result r = wait(p, 60);
  const double s = std::chrono::duration<double>(steady_clock::now() - t0).count();
  std::printf("stop during the evaluation: job ended %.2f s after SIGTERM\n", s);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("the evaluation after step 2 was cut short by the stop request"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("| eval loss"), std::string::npos) << "a partial eval loss was reported\n" << r.output;
  EXPECT_NE(r.output.find("stopped after step 2 on request"), std::string::npos) << r.output;
  const std::string latest = readFile(d + "/latest");
  ASSERT_EQ(latest.rfind("step-", 0), 0u) << r.output;
  EXPECT_EQ(std::stoi(latest.substr(5)), 2) << r.output;
  EXPECT_LT(s, 20.0) << "the stop waited for the evaluation\n" << r.output;
  std::system(("rm -rf " + d + " " + pids_file).c_str());
}

// A NaN in the --model weights is named (file, tensor, count) when they are loaded, with exit
// status 2; it used to surface as a diverged loss at step 1.
TEST(TrainingJob, NonFiniteWeightsAreNamedAtLoad) {
  const std::string m = tmpDir("nanmodel");
  std::system(fmt::format("cp -r {} {}", stories(), m).c_str());
  const std::string file = m + "/model.safetensors";
  const std::string name = "model.layers.1.mlp.up_proj.weight";
  uint64_t at = 0;
  {
    const auto st = slidedp::formats::SafetensorsFile::open(file);
    const auto* t = st.find(name);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->dtype, slidedp::formats::DType::F32);
    std::ifstream in(file, std::ios::binary);
    uint64_t header = 0;
    in.read(reinterpret_cast<char*>(&header), 8);
    at = 8 + header + t->data_begin + 4 * 7;  // element 7
  }
  {
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    const uint32_t nan = 0x7fc00000u, inf = 0x7f800000u;
    f.seekp(static_cast<std::streamoff>(at));
    f.write(reinterpret_cast<const char*>(&nan), 4);
    f.write(reinterpret_cast<const char*>(&inf), 4);
  }
  Result r = wait(start({SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3",
                         SLIDEDP_WORKER_BIN, "--device", "cpu", "--model", m, "--batch-size", "4",
                         "--seq-len", "64", "--steps", "2"}));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(fmt::format("{}: tensor '{}' holds 2 value(s) that are NaN or infinite (the first "
                                      "at element 7)", m, name)),
            std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("step 1/"), std::string::npos) << r.output;
  std::system(("rm -rf " + m).c_str());
}

// A resume with the same --trace keeps the earlier run's trace and writes its own beside it,
// named by the step it records (the default step 2 is before the resume: its first step).
TEST(TrainingJob, AResumeKeepsTheEarlierTraceAndWritesItsOwnBeside) {
  const std::string d = tmpDir("resumetrace");
  const std::string trace = d + ".trace.json", beside = d + ".trace-step3.json";
  std::remove(trace.c_str());
  std::remove(beside.c_str());
  Result first = wait(start(train({"--steps", "2", "--checkpoint-dir", d, "--trace", trace})));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::string earlier = readFile(trace);
  ASSERT_NE(earlier.find("backward unit 1"), std::string::npos) << first.output;
  Result again = wait(start(train({"--steps", "4", "--checkpoint-dir", d, "--trace", trace, "--resume", d})));
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(readFile(trace), earlier) << "the earlier run's trace was overwritten\n" << again.output;
  EXPECT_NE(readFile(beside).find("backward unit 1"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("--trace " + trace + " holds an earlier run's trace: kept; this run's goes to " +
                              beside), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("trace of step 3 written to " + beside), std::string::npos) << again.output;
  // a second resume from the same step keeps the first resume's trace too
  const std::string third = d + ".trace-step3-2.json";
  const std::string resumed = readFile(beside);
  Result twice = wait(start(train({"--steps", "4", "--checkpoint-dir", d + ".b", "--trace", trace, "--resume",
                                   d + "/step-00000002"})));
  ASSERT_EQ(twice.exit_code, 0) << twice.output;
  EXPECT_EQ(readFile(beside), resumed) << "the first resume's trace was overwritten";
  EXPECT_NE(readFile(third).find("backward unit 1"), std::string::npos) << twice.output;
  // where the resumed run's trace would go is a directory: refused before the first step
  std::system(("rm -f " + third + " " + beside + " && mkdir -p " + beside).c_str());
  Result dir = wait(start(train({"--steps", "4", "--checkpoint-dir", d + ".c", "--trace", trace, "--resume",
                                 d + "/step-00000002"})));
  EXPECT_EQ(dir.exit_code, 2) << dir.output;
  EXPECT_NE(dir.output.find("where this resumed run's would go, is a directory"), std::string::npos) << dir.output;
  EXPECT_EQ(dir.output.find("step 3/"), std::string::npos) << dir.output;
  std::system(("rm -rf " + d + " " + d + ".b " + d + ".c " + trace + " " + beside + " " + third).c_str());
}

// `--resume DIR` alone continues the run with its own flags, saved in the checkpoint (model,
// data, learning rate, batch); flags on the command line override them (--steps here).
TEST(TrainingJob, ResumeAloneContinuesWithTheSavedConfiguration) {
  const std::string d = tmpDir("resumealone");
  Result first = wait(start(train({"--steps", "2", "--lr", "0.0007", "--checkpoint-dir", d})));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::vector<std::string> base = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np",
                                         "3", SLIDEDP_WORKER_BIN, "--device", "cpu"};
  // Each rank writes the saved configuration to a file of its own under TMPDIR, removed once read.
  const std::string tmp = d + ".tmpdir";
  std::system(("rm -rf " + tmp + " && mkdir -p " + tmp).c_str());
  std::vector<std::string> again = {"/usr/bin/env", "TMPDIR=" + tmp};
  again.insert(again.end(), base.begin(), base.end());
  for (const char* a : {"--resume", d.c_str(), "--steps", "4"}) again.push_back(a);
  Result r = wait(start(again));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(std::system(("test -z \"$(ls -A " + tmp + ")\"").c_str()), 0) << "a temporary file was left in " << tmp;
  std::system(("rm -rf " + tmp).c_str());
  EXPECT_NE(r.output.find("continuing with the configuration saved in " + d + "/step-00000002/trainer_state.json"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("at step 3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("step 4/4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("lr 7.00e-04"), std::string::npos) << "the saved --lr was not used\n" << r.output;
  EXPECT_NE(r.output.find("model=\"" + stories() + "\""), std::string::npos) << r.output;
  // One rank alone cannot write its temporary file (its TMPDIR is missing): it says so, with
  // its rank, and every rank ends with status 2 at once (a rank exiting alone before MPI_Init
  // left the others waiting in their first collective).
  {
    std::vector<std::string> mpmd = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none"};
    for (int rank = 0; rank < 3; ++rank) {
      if (rank > 0) mpmd.push_back(":");
      for (const char* a : {"-np", "1"}) mpmd.push_back(a);
      if (rank == 1) for (const char* a : {"/usr/bin/env", "TMPDIR=/nonexistent-slidedp-tmp"}) mpmd.push_back(a);
      for (const std::string& a : {std::string(SLIDEDP_WORKER_BIN), std::string("--device"), std::string("cpu"),
                                   std::string("--resume"), d, std::string("--steps"), std::string("5")})
        mpmd.push_back(a);
    }
    Result m = wait(start(mpmd), 60);
    EXPECT_EQ(m.exit_code, 2) << m.output;
    EXPECT_EQ(countOccurrences(m.output, "slidedp: error: rank 1: cannot create a temporary file "
                                         "/nonexistent-slidedp-tmp/slidedp-resume-"), 1) << m.output;
    EXPECT_EQ(m.output.find("step 5/"), std::string::npos) << m.output;
  }
  // Started elsewhere: the run's relative paths (here its --checkpoint-dir) are taken from the
  // directory the run started in, which the checkpoint records.
  const std::string a = d + ".a", b = d + ".b";
  std::system(("rm -rf " + a + " " + b + " && mkdir -p " + a + " " + b).c_str());
  std::vector<std::string> rel = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3",
                                   "--wdir", a, SLIDEDP_WORKER_BIN, "--device", "cpu", "--model", stories(),
                                   "--batch-size", "4", "--seq-len", "64", "--chunk-numel", "5000",
                                   "--leader-threads", "1", "--steps", "2", "--checkpoint-dir", "ck"};
  Result ra = wait(start(rel));
  ASSERT_EQ(ra.exit_code, 0) << ra.output;
  Result rb = wait(start({SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3", "--wdir", b,
                          SLIDEDP_WORKER_BIN, "--device", "cpu", "--resume", a + "/ck", "--steps", "3"}));
  EXPECT_EQ(rb.exit_code, 0) << rb.output;
  EXPECT_NE(rb.output.find("its relative paths (--checkpoint-dir) are taken from " + a), std::string::npos) << rb.output;
  EXPECT_NE(readFile(a + "/ck/latest").find("step-00000003"), std::string::npos) << rb.output;
  EXPECT_EQ(std::system(("test -z \"$(ls -A " + b + ")\"").c_str()), 0) << "the resume wrote into " << b;
  // A copy of the run's checkpoints, resumed alone from one of its step directories: the resume
  // checkpoints beside the copy and leaves the run's own --checkpoint-dir (a/ck) as it was, not
  // written into nor pruned.
  const std::string c = d + ".copy";
  std::system(("rm -rf " + c + " && cp -r " + a + "/ck " + c).c_str());
  const std::string before = readFile(a + "/ck/latest");
  Result rc = wait(start({SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3", "--wdir", b,
                          SLIDEDP_WORKER_BIN, "--device", "cpu", "--resume", c + "/step-00000003", "--steps", "4"}));
  EXPECT_EQ(rc.exit_code, 0) << rc.output;
  EXPECT_NE(rc.output.find("the checkpoint resumed lies outside the run's --checkpoint-dir " + a + "/ck (a copy?): "
                           "this run checkpoints in " + c + ","), std::string::npos) << rc.output;
  EXPECT_EQ(readFile(a + "/ck/latest"), before) << rc.output;
  EXPECT_NE(readFile(c + "/latest").find("step-00000004"), std::string::npos) << rc.output;
  // A step directory copied under another name lies in no checkpoint directory: refused with
  // the fix, before anything is written.
  const std::string renamed = d + ".renamed";
  std::system(("rm -rf " + renamed + " && cp -r " + a + "/ck/step-00000003 " + renamed).c_str());
  Result rr = wait(start({SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3", "--wdir", b,
                          SLIDEDP_WORKER_BIN, "--device", "cpu", "--resume", renamed, "--steps", "4"}));
  EXPECT_EQ(rr.exit_code, 2) << rr.output;
  EXPECT_NE(rr.output.find("in no checkpoint directory of its own (its name is not step-*)"), std::string::npos)
      << rr.output;
  EXPECT_NE(rr.output.find("HINT: give --checkpoint-dir"), std::string::npos) << rr.output;
  // A symlink to one of the run's own step directories resolves to the run's directory: it
  // continues there, no redirect.
  const std::string link = d + ".link";
  std::system(("ln -sfn " + a + "/ck/step-00000003 " + link).c_str());
  Result rl = wait(start({SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3", "--wdir", b,
                          SLIDEDP_WORKER_BIN, "--device", "cpu", "--resume", link, "--steps", "4"}));
  EXPECT_EQ(rl.exit_code, 0) << rl.output;
  EXPECT_EQ(rl.output.find("lies outside"), std::string::npos) << rl.output;
  EXPECT_NE(readFile(a + "/ck/latest").find("step-00000004"), std::string::npos) << rl.output;
  EXPECT_EQ(std::system(("test -z \"$(ls -A " + b + ")\"").c_str()), 0) << "the resume wrote into " << b;
  std::system(("rm -rf " + a + " " + b + " " + c + " " + renamed + " " + link).c_str());
  // A checkpoint whose trainer_state.json saves no configuration: said, with what to do.
  const std::string state = d + "/step-00000004/trainer_state.json";
  auto j = nlohmann::json::parse(readFile(state));
  j.erase("configuration");
  std::ofstream(state) << j.dump();
  std::vector<std::string> old = base;
  for (const char* a : {"--resume", d.c_str(), "--steps", "6"}) old.push_back(a);
  Result o = wait(start(old));
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("saves no configuration (written by an older slidedp), so --resume alone cannot "
                          "bring back the run's flags"), std::string::npos) << o.output;
  std::system(("rm -rf " + d).c_str());
}

// A model moved (or a scratch disk cleaned) since the run: --resume alone names the saved
// --model that is gone, and its HINT spells out the flags to add, the run's saved ones that the
// command line does not give; the command with them (the model at its new place) resumes. A
// saved path inside the gone model directory (its --tokenizer) is spelt under NEW_PLACE too.
TEST(TrainingJob, ResumeAloneWithTheModelGoneSpellsOutTheFlags) {
  const std::string d = tmpDir("resumegone"), model = d + ".model", moved = d + ".moved";
  std::system(("rm -rf " + model + " " + moved + " && cp -r " + stories() + " " + model).c_str());
  std::vector<std::string> first = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3",
                                    SLIDEDP_WORKER_BIN, "--device", "cpu", "--model", model, "--batch-size", "4",
                                    "--seq-len", "32", "--lr", "0.0007", "--leader-threads", "1", "--steps", "2",
                                    "--checkpoint-dir", d, "--data", sharedDir() + "/data/kjv.txt",
                                    "--tokenizer", model + "/tokenizer.model"};
  ASSERT_EQ(wait(start(first)).exit_code, 0);
  ASSERT_EQ(std::rename(model.c_str(), moved.c_str()), 0);
  std::vector<std::string> again = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3",
                                    SLIDEDP_WORKER_BIN, "--device", "cpu", "--resume", d, "--steps", "3"};
  Result r = wait(start(again));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(countOccurrences(r.output, "was trained from --model " + model + ", which is not there any more"), 1)
      << r.output;
  const std::string hint = "\n  --model NEW_PLACE ";
  const size_t at = r.output.find(hint);
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string flags = r.output.substr(at + hint.size(), r.output.find('\n', at + 1) - at - hint.size());
  // the saved flags this command line lacks, and none it gives (--device, --steps, --resume)
  for (const char* f : {"--batch-size 4", "--seq-len 32", "--lr 0.0007", "--leader-threads 1", "--checkpoint-dir",
                        "--tokenizer NEW_PLACE/tokenizer.model"})
    EXPECT_NE(flags.find(f), std::string::npos) << f << " missing in: " << flags;
  EXPECT_EQ(flags.find(model), std::string::npos) << "the gone model directory in: " << flags;
  for (const char* f : {"--device", "--steps", "--resume"})
    EXPECT_EQ(flags.find(f), std::string::npos) << f << " in: " << flags;
  EXPECT_EQ(r.output.find("step 3/"), std::string::npos) << r.output;
  // --model alone (the command line is then the run's whole command): without --data the run
  // would go on with random tokens; refused before start-up, naming the data
  again.insert(again.end(), {"--model", moved});
  Result bare = wait(start(again));
  EXPECT_EQ(bare.exit_code, 2) << bare.output;
  EXPECT_NE(bare.output.find("the run was trained on --data " + sharedDir() + "/data/kjv.txt, and this command "
                             "gives no --data, so it would go on with random tokens"), std::string::npos)
      << bare.output;
  EXPECT_EQ(bare.output.find("step 3/"), std::string::npos) << bare.output;
  // the hint's flags, split on spaces (no value here holds one), with the model's new place
  std::istringstream words(flags);
  for (std::string w; words >> w;)
    again.push_back(w.rfind("NEW_PLACE", 0) == 0 ? moved + w.substr(std::strlen("NEW_PLACE")) : w);
  Result ok = wait(start(again));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("step 3/3"), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("lr 7.00e-04"), std::string::npos) << ok.output;
  std::system(("rm -rf " + d + " " + moved).c_str());
}

TEST(TrainingJob, ConfigFileWithFlagOverridesAndContradictions) {
  const std::string cfg = fmt::format("/tmp/slidedp-systest-{}.toml", getpid());
  {
    std::ofstream f(cfg);
    f << "steps = 2\nlr = 0.0005\nbatch-size = 4\nseq-len = 32\n";
  }
  Result r = wait(start(train({"--config", cfg, "--lr", "0.002"})));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("lr=0.002"), std::string::npos) << "resolved configuration not printed";
  EXPECT_NE(r.output.find("lr 2.00e-03"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("step 2/2"), std::string::npos) << r.output;
  // Contradictions are refused with a reason.
  Result c = wait(start(train({"--config", cfg, "--route-sweep", "replicated/cpu", "--resume", "/nonexistent"})));
  EXPECT_EQ(c.exit_code, 2) << c.output;
  EXPECT_NE(c.output.find("do not go together"), std::string::npos) << c.output;
  // An empty --resume (a script's unset variable) would start from scratch: refused.
  Result e = wait(start(train({"--config", cfg, "--resume", ""})));
  EXPECT_EQ(e.exit_code, 2) << e.output;
  EXPECT_EQ(countOccurrences(e.output, "--resume was given an empty value"), 1) << e.output;
  EXPECT_EQ(e.output.find("step 1/"), std::string::npos) << e.output;
  Result m = wait(start(train({"--config", cfg, "--resume", "/nonexistent"})));
  EXPECT_NE(m.exit_code, 0) << m.output;
  EXPECT_NE(m.output.find("/nonexistent does not exist"), std::string::npos) << m.output;
  // A '#' inside a quoted value: CLI11 would cut the value there (a checkpoint directory
  // '"/tmp/x ' in the current directory), so it is refused, naming the key.
  { std::ofstream(cfg) << "steps = 2\ncheckpoint-dir = \"/tmp/slidedp-x #y\"\n"; }
  Result h = wait(start(train({"--config", cfg})));
  EXPECT_EQ(h.exit_code, 2) << h.output;
  EXPECT_NE(h.output.find("line 2: the value of 'checkpoint-dir' holds '#'"), std::string::npos) << h.output;
  // What CLI11 would read otherwise than TOML does (break-it helper): a JSON file (an unknown key
  // '"model": ...' before), a byte-order mark (an unknown key that printed as 'steps'), a
  // triple-quoted string and a backslash escape (both kept in the path as typed).
  const std::vector<std::pair<std::string, std::string>> unlike_toml = {
      {"{\n  \"steps\": 2\n}\n", "line 1: this looks like JSON; a config file is TOML"},
      {"\xEF\xBB\xBFsteps = 2\n", "starts with a UTF-8 byte-order mark"},
      {"steps = 2\nmetrics = \"\"\"/tmp/m.jsonl\"\"\"\n", "line 2: the value of 'metrics' is a triple-quoted string"},
      {"steps = 2\nmetrics = \"/tmp/a\\\\b.jsonl\"\n", "line 2: the value of 'metrics' holds a backslash in double quotes"}};
  for (const auto& [body, want] : unlike_toml) {
    { std::ofstream(cfg) << body; }
    Result u = wait(start(train({"--config", cfg})));
    EXPECT_EQ(u.exit_code, 2) << u.output;
    EXPECT_EQ(countOccurrences(u.output, want), 1) << body << "\n" << u.output;
    EXPECT_NE(u.output.find("HINT: "), std::string::npos) << u.output;
    EXPECT_EQ(u.output.find("step 1/"), std::string::npos) << u.output;
  }
  std::remove(cfg.c_str());
}

// A run that ended after its last checkpoint (a crash) wrote the later steps' metrics already:
// its resume drops them, and a torn last line, before it runs those steps again, so the file
// has every step once (break-it helper: steps 61-88 twice after a kill -9 and a resume).
TEST(TrainingJob, AResumeDropsTheMetricsOfTheStepsItRunsAgain) {
  const std::string d = tmpDir("metrics-resume"), m = d + ".metrics.jsonl";
  std::system(("rm -rf " + d + " " + m).c_str());
  ASSERT_EQ(wait(start(train({"--steps", "6", "--checkpoint-dir", d, "--checkpoint-every", "4", "--metrics", m})))
                .exit_code, 0);
  // as if the run had died after step 6 with its last checkpoint at step 4, cutting a write
  std::system(("rm -rf " + d + "/step-00000006 && echo step-00000004 > " + d + "/latest").c_str());
  { std::ofstream(m, std::ios::app) << "{\"step\": 7, \"loss\": 1."; }
  Result r = wait(start(train({"--steps", "8", "--resume", d, "--metrics", m})));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(countOccurrences(r.output, "3 line(s) of step 5 or later dropped"), 1) << r.output;
  std::ifstream in(m);
  std::vector<int64_t> steps;
  for (std::string line; std::getline(in, line);) steps.push_back(nlohmann::json::parse(line).at("step").get<int64_t>());
  EXPECT_EQ(steps, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  std::system(("rm -rf " + d + " " + m).c_str());
}

TEST(TrainingJob, TraceHasEveryRanksPipeline) {
  const std::string trace = fmt::format("/tmp/slidedp-systest-{}.trace.json", getpid());
  Result r = wait(start(train({"--steps", "3", "--trace", trace, "--trace-step", "2"})));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string t = readFile(trace);
  EXPECT_NE(t.find("\"traceEvents\""), std::string::npos);
  for (const char* what : {"reduce + AdamW unit 6", "forward unit 3", "backward unit 1",
                           "hand-off unit 0", "leader (rank 0)", "worker (rank 2)"})
    EXPECT_NE(t.find(what), std::string::npos) << what;
  std::remove(trace.c_str());
}
