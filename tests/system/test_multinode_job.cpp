// Several nodes on one machine (issue 17): the training job under mpirun with
// --virtual-node-size, each virtual node a leader with its own segment + its CPU workers, the
// state sharded or replicated across the nodes. Checked from outside: a bit-identical resume
// on 2 and on 3 nodes (and a resume on another node count refused), the same export from both
// layouts, kill -9 of a rank on node 1 of 2 and on node 2 of 3 ends every rank on every node
// and leaves no segment, reference data with fewer rows than the workers refused before
// start-up, and the host bytes per parameter per node of the sharded layout; a checkpoint
// refused on another layout or node count says what resumes it, and the fully-sharded workers'
// gather buffers are counted for the widest route of a --route-sweep. (Equivalence with
// the float64 reference and with a single-node run on every route: tests/runtime,
// test_runtime_nodes*.)
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>

#include "common/job_log.h"
#include "common/subprocess.h"
#include "shm/segment.h"

using namespace std::chrono;
using namespace slidedp::test;
using slidedp::shm::Segment;

namespace {
/// N virtual nodes of 1 leader + G CPU workers: mpirun -np N * (1 + G) --virtual-node-size 1 + G.
std::vector<std::string> train(int nodes, int G, std::vector<std::string> extra,
                               const std::string& model = "") {
  std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np",
                                std::to_string(nodes * (1 + G)), SLIDEDP_WORKER_BIN, "--device",
                                "cpu", "--batch-size", "4", "--seq-len", "64", "--chunk-numel",
                                "5000", "--leader-threads", "1", "--virtual-node-size",
                                std::to_string(1 + G)};
  if (model.empty()) a.insert(a.end(), {"--model", stories()});
  else a.insert(a.end(), {"--model-config", model});
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}
/// The same with environment variables for every rank (mpirun -x).
std::vector<std::string> trainEnv(int nodes, int G, const std::vector<std::string>& env,
                                  std::vector<std::string> extra) {
  std::vector<std::string> a = train(nodes, G, std::move(extra));
  std::vector<std::string> x;
  for (const auto& e : env) x.insert(x.end(), {"-x", e});
  a.insert(a.begin() + 1, x.begin(), x.end());
  return a;
}
std::string tmpDir(const char* tag) {
  const std::string d = fmt::format("/tmp/slidedp-mntest-{}-{}", tag, getpid());
  std::system(("rm -rf " + d + " " + d + ".csv").c_str());
  return d;
}
}  // namespace

TEST(MultiNodeJob, ShardedTwoNodesResumeBitForBitAndAnotherNodeCountIsRefused) {
  const std::string a = tmpDir("straight"), b = tmpDir("resumed");
  Result r1 = wait(start(train(2, 1, {"--steps", "6", "--checkpoint-dir", a, "--metrics", a + ".csv"})));
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  Result r2 = wait(start(train(2, 1, {"--steps", "3", "--checkpoint-dir", b, "--metrics", b + ".csv"})));
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  Result r3 = wait(start(train(2, 1, {"--steps", "6", "--checkpoint-dir", b, "--resume", "auto",
                                      "--metrics", b + ".csv"})));
  ASSERT_EQ(r3.exit_code, 0) << r3.output;
  EXPECT_NE(r3.output.find("resumed from " + b + " at step 4"), std::string::npos) << r3.output;
  // Each node's part of the optimizer state after step 6 is byte-identical.
  for (int p = 0; p < 2; ++p) {
    const std::string file = fmt::format("/step-00000006/optimizer-node{}-of-2.safetensors", p);
    const std::string sa = readFile(a + file), sb = readFile(b + file);
    ASSERT_GT(sa.size(), 500000u) << a + file;
    EXPECT_TRUE(sa == sb) << "node " << p << "'s state after 6 steps differs between straight and resumed runs";
  }
  const auto la = metricsLosses(a + ".csv"), lb = metricsLosses(b + ".csv");
  for (int s = 1; s <= 6; ++s) EXPECT_EQ(la.at(s), lb.at(s)) << "step " << s;
  // The same checkpoint on 3 nodes: refused before any step, with what to do.
  Result r4 = wait(start(train(3, 1, {"--steps", "8", "--checkpoint-dir", b, "--resume", "auto"})));
  EXPECT_NE(r4.exit_code, 0);
  EXPECT_NE(r4.output.find("sharded across 2 nodes"), std::string::npos) << r4.output;
  EXPECT_NE(r4.output.find("HINT: resume with 2 nodes"), std::string::npos) << r4.output;
  EXPECT_EQ(r4.output.find("step 7/"), std::string::npos) << r4.output;
  std::system(("rm -rf " + a + " " + b + " " + a + ".csv " + b + ".csv").c_str());
}

// Three nodes (each leader's part of every chunk is a third, node 0's up to one 64-element
// alignment more): a run resumed from the checkpoint of step 2 ends byte-identical to the
// straight run, every node's part of the optimizer state and every step's loss.
TEST(MultiNodeJob, ShardedThreeNodesResumeBitForBit) {
  const std::string a = tmpDir("straight3"), b = tmpDir("resumed3");
  Result r1 = wait(start(train(3, 1, {"--steps", "4", "--checkpoint-dir", a, "--metrics", a + ".csv"})));
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  Result r2 = wait(start(train(3, 1, {"--steps", "2", "--checkpoint-dir", b, "--metrics", b + ".csv"})));
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  Result r3 = wait(start(train(3, 1, {"--steps", "4", "--checkpoint-dir", b, "--resume", "auto",
                                      "--metrics", b + ".csv"})));
  ASSERT_EQ(r3.exit_code, 0) << r3.output;
  EXPECT_NE(r3.output.find("resumed from " + b + " at step 3"), std::string::npos) << r3.output;
  for (int p = 0; p < 3; ++p) {
    const std::string file = fmt::format("/step-00000004/optimizer-node{}-of-3.safetensors", p);
    const std::string sa = readFile(a + file), sb = readFile(b + file);
    ASSERT_GT(sa.size(), 300000u) << a + file;
    EXPECT_TRUE(sa == sb) << "node " << p << "'s state after 4 steps differs between straight and resumed runs";
  }
  const auto la = metricsLosses(a + ".csv"), lb = metricsLosses(b + ".csv");
  for (int s = 1; s <= 4; ++s) EXPECT_EQ(la.at(s), lb.at(s)) << "step " << s;
  std::system(("rm -rf " + a + " " + b + " " + a + ".csv " + b + ".csv").c_str());
}

// Reference data (its stored rows are the global batch, whatever --batch-size says) with fewer
// rows than the workers: 4 rows for 3 nodes x 2 workers is refused before start-up (exit 2,
// once), not at the first step (where each worker failed after the segments were made).
TEST(MultiNodeJob, ReferenceDataWithFewerRowsThanWorkersIsRefusedBeforeStartUp) {
  const std::string ref = "reference:" + sharedDir() + "/reference/stories260K_kjv.reference.safetensors";
  std::vector<std::string> a = train(3, 2, {"--steps", "2", "--data", ref});
  // train() passes --batch-size 4 --seq-len 64, the file's own; without them (the default
  // --batch-size 8 passes the workers' check) only the stored rows can be checked.
  for (const char* flag : {"--batch-size", "--seq-len"}) {
    const auto it = std::find(a.begin(), a.end(), std::string(flag));
    a.erase(it, it + 2);
  }
  Result r = wait(start(a));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  const std::string want = "holds 4 rows, fewer than the 6 workers: every worker needs at least one row";
  const size_t at = r.output.find(want);
  EXPECT_NE(at, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(want, at + 1), std::string::npos) << "printed more than once\n" << r.output;
  EXPECT_EQ(r.output.find("host state"), std::string::npos) << "refused after start-up\n" << r.output;
  EXPECT_EQ(r.output.find("step 1/"), std::string::npos) << r.output;
}

// A --route-sweep variant's +tailM reorders the chunk plan between variants, which one node only
// does (the leaders' parts follow the plan): refused before start-up on 2 virtual nodes.
TEST(MultiNodeJob, ASweepChangingTheUpdateTailIsRefusedBeforeStartUp) {
  Result r = wait(start(train(2, 1, {"--steps", "1", "--route-sweep", "replicated/cpu@4,replicated/cpu+tail2@4"})));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--route-sweep item 'replicated/cpu+tail2@4': +tail2 changes the update tail "
                          "between variants, which one node only does"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("step 1/"), std::string::npos) << r.output;
  // every item with the same tail: the job's from the start (nothing changes between variants)
  Result same = wait(start(train(2, 1, {"--steps", "1", "--route-sweep", "replicated/cpu+tail2@4,sharded/cpu+tail2@4"})));
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_NE(same.output.find("update tail: layers 1..2 after the embedding (in order only"), std::string::npos)
      << same.output;
}

// Streamed checkpoints on several nodes (train/checkpoint_stream.h): each leader holding a part
// streams its own file into the shared step directory while the next steps run, and world rank
// 0 commits it once every file is complete. With the disk slowed (50 ms per unit, so the write
// spans step 3's updates: without staging memory its ckpt-wait shows the gate held; with it the
// updates copy the units the writers have not reached), what is written is the state after
// its step (byte-identical to a blocking checkpoint), and a run resumed from the streamed
// checkpoint of step 4 ends byte-identical to the straight run, on 2 virtual nodes, both layouts.
TEST(MultiNodeJob, StreamedCheckpointsOnTwoNodesResumeBitForBit) {
  const std::vector<std::string> slow_disk = {"SLIDEDP_TEST_SLOW_CHECKPOINT=0.05"};
  for (const char* layout : {"sharded", "replicated"}) {
    SCOPED_TRACE(layout);
    const std::string s = tmpDir("ss"), b = tmpDir("sb"), r = tmpDir("sr");
    const bool sharded = std::string(layout) == "sharded";
    const std::vector<std::string> files =
        sharded ? std::vector<std::string>{"optimizer-node0-of-2.safetensors", "optimizer-node1-of-2.safetensors"}
                : std::vector<std::string>{"optimizer.safetensors"};
    // sharded: without staging memory, so step 3's updates wait for the writers (the gate);
    // replicated: with it (the default), so they copy the units instead.
    std::vector<std::string> args = {"--steps", "6", "--node-layout", layout, "--checkpoint-dir", s,
                                      "--checkpoint-every", "2", "--keep-checkpoints", "0", "--metrics", s + ".csv"};
    if (sharded) args.insert(args.end(), {"--checkpoint-staging", "0"});
    Result streamed = wait(start(trainEnv(2, 1, slow_disk, args)));
    ASSERT_EQ(streamed.exit_code, 0) << streamed.output;
    EXPECT_NE(streamed.output.find("checkpoint of step 2: streaming to"), std::string::npos) << streamed.output;
    EXPECT_NE(streamed.output.find("checkpoint of step 4: streaming to"), std::string::npos) << streamed.output;
    if (sharded) {
      EXPECT_GT(stepField(streamed.output, 3, "ckpt-wait"), 0.05) << streamed.output;
    }
    Result blocking = wait(start(train(2, 1, {"--steps", "4", "--node-layout", layout, "--checkpoint-dir", b,
        "--checkpoint-every", "2", "--keep-checkpoints", "0", "--checkpoint-mode", "blocking"})));
    ASSERT_EQ(blocking.exit_code, 0) << blocking.output;
    for (const char* step : {"step-00000002", "step-00000004"}) {
      // Exactly the files of the layout: one per leader holding a part.
      EXPECT_NE(readFile(s + "/" + step + "/trainer_state.json").find("\"num_nodes\": 2"), std::string::npos);
      for (const auto& f : files) {
        const std::string a = readFile(s + "/" + step + "/" + f);
        ASSERT_GT(a.size(), 500000u) << step << "/" << f;
        EXPECT_TRUE(a == readFile(b + "/" + step + "/" + f))
            << step << "/" << f << ": the streamed checkpoint differs from the blocking one";
      }
    }
    Result resumed = wait(start(train(2, 1, {"--steps", "6", "--node-layout", layout, "--checkpoint-dir", r,
        "--resume", s + "/step-00000004", "--metrics", r + ".csv"})));
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_NE(resumed.output.find("at step 5"), std::string::npos) << resumed.output;
    for (const auto& f : files)
      EXPECT_TRUE(readFile(s + "/step-00000006/" + f) == readFile(r + "/step-00000006/" + f))
          << f << ": the state after 6 steps differs between the straight run and the one resumed "
             "from a streamed checkpoint";
    const auto ls = metricsLosses(s + ".csv"), lr = metricsLosses(r + ".csv");
    for (int step = 5; step <= 6; ++step) EXPECT_EQ(ls.at(step), lr.at(step)) << "step " << step;
    std::system(("rm -rf " + s + " " + b + " " + r + " " + s + ".csv " + r + ".csv").c_str());
  }
}

TEST(MultiNodeJob, ShardedAndReplicatedLayoutsExportTheSameModelOnTwoNodes) {
  // With 2 nodes both layouts add the same two node gradients (a + b = b + a exactly) and run
  // the same element-wise AdamW, so the gathered export of the sharded run must equal, byte for
  // byte, the replicated run's (whose node 0 holds the whole model). Both with the dense
  // embedding update: replicated would otherwise run the row-split one (sharded cannot), whose
  // fp32 sum of a token row's gradient is in another order (embedding_split.h). Fully sharded,
  // the workers gather every unit from the two nodes' parts of the copy: the same values.
  std::map<std::string, std::string> model;
  for (const char* layout : {"sharded", "replicated", "fully-sharded"}) {
    const std::string d = tmpDir(layout);
    Result r = wait(start(train(2, 2, {"--steps", "3", "--node-layout", layout, "--embedding-update", "dense", "--export", d})));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(fmt::format("state {} across 2 node(s)", layout)), std::string::npos) << r.output;
    model[layout] = readFile(d + "/model.safetensors");
    ASSERT_GT(model[layout].size(), 500000u) << r.output;
    std::system(("rm -rf " + d).c_str());
  }
  EXPECT_TRUE(model["sharded"] == model["replicated"]) << "the exports of the two layouts differ";
  EXPECT_TRUE(model["fully-sharded"] == model["sharded"]) << "fully-sharded exports another model";
}

TEST(MultiNodeJob, AShardedCheckpointResumesFullyShardedBitForBit) {
  // Both cut the optimizer state alike (one file per node); fully-sharded cuts the delivery copy
  // too, which a checkpoint does not hold (it is rebuilt from the master). A sharded run
  // checkpointed at step 3 and resumed fully sharded on 2 nodes x 2 workers ends byte-identical
  // to the straight sharded run, and a fully-sharded checkpoint resumes sharded as well.
  const std::string a = tmpDir("fs-straight"), b = tmpDir("fs-half"), c = tmpDir("fs-back");
  const std::vector<std::string> files = {"optimizer-node0-of-2.safetensors", "optimizer-node1-of-2.safetensors"};
  Result straight = wait(start(train(2, 2, {"--steps", "6", "--node-layout", "sharded", "--checkpoint-dir", a,
                                            "--checkpoint-every", "3", "--keep-checkpoints", "0"})));
  ASSERT_EQ(straight.exit_code, 0) << straight.output;
  Result resumed = wait(start(train(2, 2, {"--steps", "6", "--node-layout", "fully-sharded", "--checkpoint-dir", b,
                                           "--resume", a + "/step-00000003", "--checkpoint-every", "2",
                                           "--keep-checkpoints", "0"})));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("state fully-sharded across 2 node(s)"), std::string::npos) << resumed.output;
  for (const auto& f : files)
    EXPECT_TRUE(readFile(a + "/step-00000006/" + f) == readFile(b + "/step-00000006/" + f))
        << f << ": sharded 1-6 and sharded 1-3 + fully-sharded 4-6 differ";
  Result back = wait(start(train(2, 2, {"--steps", "6", "--node-layout", "sharded", "--checkpoint-dir", c,
                                        "--resume", b + "/step-00000004"})));
  ASSERT_EQ(back.exit_code, 0) << back.output;
  for (const auto& f : files)
    EXPECT_TRUE(readFile(a + "/step-00000006/" + f) == readFile(c + "/step-00000006/" + f))
        << f << ": a fully-sharded checkpoint resumed sharded differs from the straight run";
  std::system(("rm -rf " + a + " " + b + " " + c).c_str());
}

TEST(MultiNodeJob, ACheckpointRefusedOnAnotherLayoutSaysWhatResumesIt) {
  // A whole state (replicated on 2 nodes) resumes unsharded only: replicated on any node count,
  // or on one node; the hint named "the node count it was saved with", which is this one. A
  // fully-sharded checkpoint is recorded as sharded (the same files): refused on 3 nodes, it
  // names both layouts that resume it.
  const std::string rep = tmpDir("whole"), fs = tmpDir("fs-other-count");
  Result saved = wait(start(train(2, 1, {"--steps", "1", "--node-layout", "replicated", "--checkpoint-dir", rep})));
  ASSERT_EQ(saved.exit_code, 0) << saved.output;
  Result r = wait(start(train(2, 1, {"--steps", "2", "--node-layout", "fully-sharded", "--resume", rep})));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("but this run shards it across 2 nodes (--node-layout fully-sharded).\n"
                          "HINT: resume with --node-layout replicated (any node count) or on one node"),
            std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("node count it was saved with"), std::string::npos) << r.output;
  saved = wait(start(train(2, 1, {"--steps", "1", "--node-layout", "fully-sharded", "--checkpoint-dir", fs})));
  ASSERT_EQ(saved.exit_code, 0) << saved.output;
  r = wait(start(train(3, 1, {"--steps", "2", "--node-layout", "fully-sharded", "--resume", fs})));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("holds the state sharded across 2 nodes (--node-layout sharded or fully-sharded, "
                          "--chunk-numel 5000), but this run has 3 node(s)"),
            std::string::npos) << r.output;
  std::system(("rm -rf " + rep + " " + fs).c_str());
}

TEST(MultiNodeJob, FullyShardedGatherBuffersAreCountedForTheWidestRouteOfASweep) {
  // Fully sharded, a worker's gather buffer holds the chunks under its delivery range: about
  // 1/G of a unit on the sharded routes, the whole unit on the replicated one (grown on first
  // use). A --route-sweep with a replicated variant grows it to the whole unit whatever
  // --delivery says, so the up-front memory check and the B/param line count that (they counted
  // --delivery's route only: half the bytes here, 1/G of the largest unit on G GPUs).
  const std::regex line(R"(of which (\d+) the workers' gather buffers)");
  const std::regex check(R"(the workers' gather buffers ([0-9.]+ [KMG]?i?B)\))");
  auto gathered = [&](std::vector<std::string> extra) -> std::pair<long long, std::string> {
    extra.insert(extra.end(), {"--steps", "1", "--node-layout", "fully-sharded"});
    Result r = wait(start(train(2, 2, extra)));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::smatch m, c;
    const bool found = std::regex_search(r.output, m, line) && std::regex_search(r.output, c, check);
    EXPECT_TRUE(found) << r.output;
    return found ? std::pair<long long, std::string>{std::stoll(m[1]), c[1]} : std::pair<long long, std::string>{-1, ""};
  };
  const auto whole = gathered({"--delivery", "replicated"});
  const auto shard = gathered({"--delivery", "sharded"});
  EXPECT_GT(whole.first, shard.first);  // 5000-element chunks: a shard's span is not a whole unit
  EXPECT_EQ(gathered({"--delivery", "sharded", "--route-sweep", "sharded/cpu,replicated/cpu"}), whole);
  EXPECT_EQ(gathered({"--delivery", "replicated", "--route-sweep", "sharded/cpu,sharded/gpu"}), shard);
}

namespace {
/// kill -9 of rank `victim` of `nodes` virtual nodes x 1 worker during training: every rank of
/// every node is gone within 10 s, the job fails, and no node's segment is left.
void killNineEndsEveryRank(int nodes, int victim, const char* layout = "sharded") {
  const int ranks = 2 * nodes;
  const std::string name = fmt::format("slidedp-mnkill{}-{}-{}-{}", nodes, getpid(), victim, layout);
  const KillNineResult k = killNineDuringTraining(
      train(nodes, 1, {"--steps", "100000", "--node-layout", layout}), name, ranks, victim);
  if (k.seconds < 0) return;
  std::printf("kill -9 of rank %d (node %d) during training: all %d ranks of %d nodes gone %.2f s later\n",
              victim, victim / 2, ranks, nodes, k.seconds);
  for (int n = 0; n < nodes; ++n)
    EXPECT_FALSE(Segment::exists(fmt::format("{}-n{}", name, n))) << "node " << n << "\n" << k.job.output;
}
}  // namespace

TEST(MultiNodeJob, KillNineOnNodeOneEndsEveryRankOnEveryNode) {
  // Ranks: 0 leader of node 0, 1 its worker, 2 leader of node 1, 3 its worker.
  for (int victim : {3, 2}) killNineEndsEveryRank(2, victim);
}

TEST(MultiNodeJob, KillNineOfAWorkerInTheNodesGatherEndsEveryRank) {
  // Fully sharded, the workers of every node all-gather each unit between them: node 1's worker
  // killed while node 0's waits in that collective.
  killNineEndsEveryRank(2, 3, "fully-sharded");
}

TEST(MultiNodeJob, KillNineOnNodeTwoOfThreeEndsEveryRankOnEveryNode) {
  // 3 nodes x 1 worker. Ranks: 0, 2, 4 the leaders of nodes 0, 1, 2; 1, 3, 5 their workers.
  // Node 2's leader: node 0's and node 1's leaders are then inside the leaders' collectives
  // or waiting for their own workers, not for node 2's segment.
  for (int victim : {4, 5}) killNineEndsEveryRank(3, victim);
}

TEST(MultiNodeJob, HostBytesPerParameterPerNode) {
  // A 2.6 M-parameter random model (the per-unit 4 KiB alignment and the control block are
  // negligible at this size). Sharded across N nodes a node holds master, m and v for 1/N of
  // every chunk (12/N B/param) and the whole delivery copy the workers read (fp32 here: CPU
  // workers compute in fp32; bf16, 2 B/param, on GPU workers), plus the bounded staging ring.
  // Issue 17's target, <= 14.5/N + staging, holds for the optimizer state; the delivery copy is
  // counted with the staging (it is what every node's workers stream from). Fully sharded, the
  // copy is cut too: a node holds 12/N (fp32 compute: delivered from the master) or 14/N (bf16)
  // B/param, the target with nothing set aside; the workers' gather buffers are staging (one
  // unit each). With 65536-element chunks (parts of 32768 on 2 nodes, 21888 on 3).
  const std::string dir = tmpDir("bytes");
  std::system(("mkdir -p " + dir).c_str());
  {
    std::ofstream f(dir + "/config.json");
    f << R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 2048,
      "hidden_size": 256, "intermediate_size": 688, "num_hidden_layers": 2,
      "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 64, "hidden_act": "silu",
      "max_position_embeddings": 512, "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
      "initializer_range": 0.02, "tie_word_embeddings": false, "attention_bias": false,
      "mlp_bias": false, "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32"})";
  }
  const std::regex line(R"(node (\d+): host state (\d+) bytes for (\d+) params: ([0-9.]+) B/param without staging \((\d+) staging bytes)");
  // (bf16: CPU workers computing in bf16 from the bf16 delivery copy, as GPU workers do.)
  struct Case { int nodes; const char* layout; double delivery_bpp; const char* precision; };
  for (const Case c : {Case{1, "sharded", 0, "fp32"}, Case{2, "sharded", 4, "fp32"},
                       Case{3, "sharded", 4, "fp32"}, Case{2, "replicated", 0, "fp32"},
                       Case{2, "sharded", 2, "bf16"}, Case{2, "fully-sharded", 0, "fp32"},
                       Case{3, "fully-sharded", 0, "fp32"}, Case{2, "fully-sharded", 0, "bf16"}}) {
    const bool fully = std::string(c.layout) == "fully-sharded";
    std::vector<std::string> args = train(c.nodes, 1, {"--steps", "1", "--node-layout", c.layout,
                                                       "--precision", c.precision},
                                          dir + "/config.json");
    if (fully) *(std::find(args.begin(), args.end(), "--chunk-numel") + 1) = "65536";
    Result r = wait(start(args), 300);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    int seen = 0;
    for (std::sregex_iterator it(r.output.begin(), r.output.end(), line), end; it != end; ++it) {
      const double bpp = std::stod((*it)[4]);
      const double state_bpp = bpp - c.delivery_bpp;  // master + m + v (+ bf16 when whole)
      std::printf("%d node(s), %s, %s: node %s holds %.3f B/param without staging (%s staging bytes); "
                  "optimizer state %.3f B/param, target 14.5/N = %.3f\n", c.nodes, c.layout, c.precision,
                  (*it)[1].str().c_str(), bpp, (*it)[5].str().c_str(), state_bpp, 14.5 / c.nodes);
      if (fully) {
        const double whole = std::string(c.precision) == "bf16" ? 14.0 : 12.0;
        EXPECT_LE(bpp, 14.5 / c.nodes) << (*it)[0];
        EXPECT_LE(bpp, 1.01 * whole / c.nodes + 0.02) << (*it)[0];
        EXPECT_GE(bpp, 0.99 * whole / c.nodes) << (*it)[0];
      } else if (c.nodes > 1 && std::string(c.layout) == "sharded") {
        EXPECT_LE(state_bpp, 14.5 / c.nodes) << (*it)[0];
        // Parts are 64-element aligned: with 5000-element chunks node 0 owns up to 1728/5000 of
        // each on 3 nodes (not 1/3), so 12/N is allowed 5% more here (0.01% at 4 M-element chunks).
        EXPECT_LE(bpp, 1.05 * 12.0 / c.nodes + c.delivery_bpp + 0.1) << (*it)[0];
      } else {
        EXPECT_LE(bpp, 14.1) << (*it)[0];
        EXPECT_GE(bpp, 14.0) << (*it)[0];
      }
      ++seen;
    }
    EXPECT_EQ(seen, c.nodes) << r.output;
  }
  std::system(("rm -rf " + dir).c_str());
}
