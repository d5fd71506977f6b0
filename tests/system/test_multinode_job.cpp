// Several nodes on one machine (issue 17): the training job under mpirun with
// --virtual-node-size, each virtual node a leader with its own segment + its CPU workers, the
// state sharded or replicated across the nodes. Checked from outside: a bit-identical resume
// on 2 nodes (and a resume on another node count refused), the same export from both layouts,
// kill -9 of a rank on node 1 ends every rank on every node and leaves no segment, and the host
// bytes per parameter per node of the sharded layout. (Equivalence with the float64 reference
// on every route: tests/runtime, test_runtime_nodes*.)
#include <gtest/gtest.h>

#include <map>
#include <regex>

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
std::string tmpDir(const char* tag) {
  const std::string d = fmt::format("/tmp/slidedp-mntest-{}-{}", tag, getpid());
  std::system(("rm -rf " + d + " " + d + ".csv").c_str());
  return d;
}
std::map<int, std::string> losses(const std::string& csv) {
  std::map<int, std::string> out;
  std::istringstream in(readFile(csv));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cols;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cols.push_back(c);
    if (cols.size() > 2) out[std::stoi(cols[0])] = cols[2];
  }
  return out;
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
  const auto la = losses(a + ".csv"), lb = losses(b + ".csv");
  for (int s = 1; s <= 6; ++s) EXPECT_EQ(la.at(s), lb.at(s)) << "step " << s;
  // The same checkpoint on 3 nodes: refused before any step, with what to do.
  Result r4 = wait(start(train(3, 1, {"--steps", "8", "--checkpoint-dir", b, "--resume", "auto"})));
  EXPECT_NE(r4.exit_code, 0);
  EXPECT_NE(r4.output.find("sharded across 2 nodes"), std::string::npos) << r4.output;
  EXPECT_NE(r4.output.find("HINT: resume with 2 nodes"), std::string::npos) << r4.output;
  EXPECT_EQ(r4.output.find("step 7/"), std::string::npos) << r4.output;
  std::system(("rm -rf " + a + " " + b + " " + a + ".csv " + b + ".csv").c_str());
}

TEST(MultiNodeJob, ShardedAndReplicatedLayoutsExportTheSameModelOnTwoNodes) {
  // With 2 nodes both layouts add the same two node gradients (a + b = b + a exactly) and run
  // the same element-wise AdamW, so the gathered export of the sharded run must equal, byte for
  // byte, the replicated run's (whose node 0 holds the whole model).
  std::map<std::string, std::string> model;
  for (const char* layout : {"sharded", "replicated"}) {
    const std::string d = tmpDir(layout);
    Result r = wait(start(train(2, 2, {"--steps", "3", "--node-layout", layout, "--export", d})));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(fmt::format("state {} across 2 node(s)", layout)), std::string::npos) << r.output;
    model[layout] = readFile(d + "/model.safetensors");
    ASSERT_GT(model[layout].size(), 500000u) << r.output;
    std::system(("rm -rf " + d).c_str());
  }
  EXPECT_TRUE(model["sharded"] == model["replicated"]) << "the exports of the two layouts differ";
}

TEST(MultiNodeJob, KillNineOnNodeOneEndsEveryRankOnEveryNode) {
  // Ranks: 0 leader of node 0, 1 its worker, 2 leader of node 1, 3 its worker.
  for (int victim : {3, 2}) {
    const std::string name = fmt::format("slidedp-mnkill-{}-{}", getpid(), victim);
    const std::string pids_file = "/tmp/" + name + ".pids";
    std::remove(pids_file.c_str());
    Proc p = start(train(2, 1, {"--shm-name", name, "--pid-file", pids_file, "--steps", "100000"}));
    const auto pids = waitForPids(pids_file, 4);
    ASSERT_EQ(pids.size(), 4u);
    ASSERT_TRUE(waitForText(p, "step 3/", 120)) << readFile(p.log);
    const auto t0 = steady_clock::now();
    kill(pids[victim], SIGKILL);
    Result r = wait(p, 60);
    EXPECT_TRUE(waitAllGone(pids, 10)) << "a rank outlived the job by 10 s";
    const double s = duration<double>(steady_clock::now() - t0).count();
    std::printf("kill -9 of rank %d (node 1) during training: all 4 ranks of 2 nodes gone %.2f s later\n",
                victim, s);
    EXPECT_LT(s, 10.0) << r.output;
    EXPECT_NE(r.exit_code, 0);
    for (int n = 0; n < 2; ++n)
      EXPECT_FALSE(Segment::exists(fmt::format("{}-n{}", name, n))) << "node " << n << "\n" << r.output;
    std::remove(pids_file.c_str());
  }
}

TEST(MultiNodeJob, HostBytesPerParameterPerNode) {
  // A 2.6 M-parameter random model (the per-unit 4 KiB alignment and the control block are
  // negligible at this size). Sharded across N nodes a node holds master, m and v for 1/N of
  // every chunk (12/N B/param) and the whole delivery copy the workers read (fp32 here: CPU
  // workers compute in fp32; bf16, 2 B/param, on GPU workers), plus the bounded staging ring.
  // Issue 17's target, <= 14.5/N + staging, holds for the optimizer state; the delivery copy is
  // counted with the staging (it is what every node's workers stream from).
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
                       Case{2, "sharded", 2, "bf16"}}) {
    Result r = wait(start(train(c.nodes, 1, {"--steps", "1", "--node-layout", c.layout,
                                             "--precision", c.precision},
                                dir + "/config.json")), 300);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    int seen = 0;
    for (std::sregex_iterator it(r.output.begin(), r.output.end(), line), end; it != end; ++it) {
      const double bpp = std::stod((*it)[4]);
      const double state_bpp = bpp - c.delivery_bpp;  // master + m + v (+ bf16 when whole)
      std::printf("%d node(s), %s, %s: node %s holds %.3f B/param without staging (%s staging bytes); "
                  "optimizer state %.3f B/param, target 14.5/N = %.3f\n", c.nodes, c.layout, c.precision,
                  (*it)[1].str().c_str(), bpp, (*it)[5].str().c_str(), state_bpp, 14.5 / c.nodes);
      if (c.nodes > 1 && std::string(c.layout) == "sharded") {
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
