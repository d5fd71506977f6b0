// GPU machine only (registered where nvidia-smi sees a GPU): the main job with one CUDA
// worker per GPU — device selection, cudaHostRegister of the segment, NCCL from an
// MPI-broadcast id — kill -9 of a GPU worker mid-run, and the CUDA IPC routes in a route sweep
// (2 workers; on a 1-GPU machine both on GPU 0 through the test-only SLIDEDP_TEST_SHARE_GPU=1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/job_log.h"
#include "common/subprocess.h"
#include "shm/segment.h"

using namespace std::chrono;
using namespace slidedp::test;
using slidedp::shm::Segment;

namespace {
int visibleGpus() {
  FILE* p = popen("nvidia-smi -L 2>/dev/null | grep -c '^GPU'", "r");
  int n = 0;
  if (p && std::fscanf(p, "%d", &n) != 1) n = 0;
  if (p) pclose(p);
  return n;
}
std::vector<std::string> mpirunCuda(int np, std::vector<std::string> extra) {
  std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--bind-to", "none", "-x", "NCCL_NVLS_ENABLE=0",
                                "-np", std::to_string(np), SLIDEDP_WORKER_BIN, "--device", "cuda"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}
}  // namespace

TEST(GpuJob, OneWorkerPerGpuRegistersTheSegmentAndRunsNccl) {
  const int g = std::min(visibleGpus(), 2);
  ASSERT_GE(g, 1) << "registered as a GPU test but nvidia-smi sees no GPU";
  const std::string name = fmt::format("slidedp-gpu-main-{}", getpid());
  Result r = wait(start(mpirunCuda(1 + g, {"--shm-name", name})));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  int ok_lines = 0;
  for (size_t at = r.output.find("segment registered for DMA"); at != std::string::npos;
       at = r.output.find("segment registered for DMA", at + 1))
    ++ok_lines;
  EXPECT_EQ(ok_lines, g) << r.output;
  EXPECT_NE(r.output.find(fmt::format("NCCL all-reduce over {} GPU worker(s): ok", g)),
            std::string::npos) << r.output;
  EXPECT_FALSE(Segment::exists(name));
  // More workers than GPUs is refused with a clear message on every launch.
  Result too_many = wait(start(mpirunCuda(2 + visibleGpus(), {"--shm-name", name})));
  EXPECT_EQ(too_many.exit_code, 2) << too_many.output;
  EXPECT_NE(too_many.output.find("GPU(s) are visible"), std::string::npos) << too_many.output;
}

TEST(GpuJob, KillNineOfAGpuWorkerEndsAllRanks) {
  const int g = std::min(visibleGpus(), 2);
  ASSERT_GE(g, 1);
  const std::string name = fmt::format("slidedp-gpu-kill-{}", getpid());
  const std::string pids_file = "/tmp/" + name + ".pids";
  std::remove(pids_file.c_str());
  Proc p = start(mpirunCuda(1 + g, {"--shm-name", name, "--pid-file", pids_file, "--hold", "120"}));
  const auto pids = waitForPids(pids_file, 1 + g);
  ASSERT_EQ(static_cast<int>(pids.size()), 1 + g);
  waitUntilExists(name);
  std::this_thread::sleep_for(seconds(3));  // past CUDA/NCCL set-up, holding
  const auto t0 = steady_clock::now();
  kill(pids[1], SIGKILL);
  Result r = wait(p, 60);
  EXPECT_TRUE(waitAllGone(pids, 10)) << "a rank outlived the job by 10 s";
  const double s = duration<double>(steady_clock::now() - t0).count();
  std::printf("kill -9 of a GPU worker: all ranks gone %.2f s later\n", s);
  EXPECT_LT(s, 10.0) << r.output;
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(Segment::exists(name));
  std::remove(pids_file.c_str());
}

TEST(GpuJob, CudaIpcRoutesTrainAndSwitchInARouteSweep) {
  // Two workers (on 2 GPUs, or both on GPU 0 with the test-only SLIDEDP_TEST_SHARE_GPU=1) train
  // the real stories260K through the IPC routes and switch between them and the host routes in
  // one job (each switch tears the IPC buffers down collectively and sets new ones up).
  const int g = visibleGpus();
  ASSERT_GE(g, 1);
  const bool share = g < 2;
  if (share) setenv("SLIDEDP_TEST_SHARE_GPU", "1", 1);
  const char* env = std::getenv("SLIDEDP_SHARED_DIR");
  const std::string model = std::string(env ? env : SLIDEDP_SHARED_DIR) + "/models/stories260K";
  const std::string name = fmt::format("slidedp-gpu-ipc-{}", getpid());
  std::vector<std::string> args = {"--shm-name", name, "--model", model, "--batch-size", "4", "--seq-len",
                                   "64", "--chunk-numel", "3000", "--steps", "2", "--precision", "fp32",
                                   "--route-sweep",
                                   "sharded-ipc/gpu-ipc,replicated/cpu,sharded-ipc/cpu,replicated/gpu-ipc"};
  std::vector<std::string> cmd = mpirunCuda(3, args);
  if (share) cmd.insert(cmd.begin() + 1, {"-x", "SLIDEDP_TEST_SHARE_GPU"});
  Result r = wait(start(cmd), 300);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* v : {"sharded-ipc/gpu-ipc", "replicated/cpu", "sharded-ipc/cpu", "replicated/gpu-ipc"})
    EXPECT_NE(r.output.find(v), std::string::npos) << v << "\n" << r.output;
  EXPECT_EQ(r.output.find("diverged"), std::string::npos) << r.output;
  EXPECT_FALSE(Segment::exists(name));
  // The NCCL routes refuse a shared GPU with a clear message instead of NCCL's.
  if (share) {
    std::vector<std::string> nccl = mpirunCuda(3, {"--shm-name", name, "--model", model, "--batch-size", "4",
                                                   "--seq-len", "64", "--steps", "1", "--delivery", "sharded"});
    nccl.insert(nccl.begin() + 1, {"-x", "SLIDEDP_TEST_SHARE_GPU"});
    Result n = wait(start(nccl), 120);
    EXPECT_EQ(n.exit_code, 2) << n.output;
    EXPECT_NE(n.output.find("cannot run with SLIDEDP_TEST_SHARE_GPU=1"), std::string::npos) << n.output;
    EXPECT_FALSE(Segment::exists(name));
    unsetenv("SLIDEDP_TEST_SHARE_GPU");
  }
}

TEST(GpuJob, GradientAccumulationStepsMatchMicroBatchesOnTheGpu) {
  // --gradient-accumulation-steps on a CUDA worker (CPU workers: test_training_job's
  // GradientAccumulationStepsMatchMicroBatches): 2 passes of 2 rows against micro-batches of 2
  // rows in one pass, fp32 compute (bf16 rounds the same sums differently only through the
  // kernels' own order), every layer kept; then with every layer recomputed and its input in
  // pinned host memory (the pool's buffers reused by the second pass). The per-pass CUDA
  // events, the gradients held across passes and the hand-offs in the last pass only: the
  // losses agree to 1e-5 (the embedding backward's atomics add in any order on the GPU).
  ASSERT_GE(visibleGpus(), 1);
  const char* env = std::getenv("SLIDEDP_SHARED_DIR");
  const std::string model = std::string(env ? env : SLIDEDP_SHARED_DIR) + "/models/stories260K";
  const std::string name = fmt::format("slidedp-gpu-accum-{}", getpid());
  auto run = [&](const std::vector<std::string>& flags, const std::string& tag) {
    const std::string csv = fmt::format("/tmp/{}-{}.csv", name, tag), trace = csv + ".trace.json";
    std::vector<std::string> args = {"--shm-name", name, "--model", model, "--batch-size", "4", "--seq-len",
                                     "64", "--steps", "3", "--precision", "fp32", "--policy", "manual",
                                     "--metrics", csv, "--trace", trace, "--trace-step", "2"};
    args.insert(args.end(), flags.begin(), flags.end());
    Result r = wait(start(mpirunCuda(2, args)), 300);
    EXPECT_EQ(r.exit_code, 0) << tag << "\n" << r.output;
    EXPECT_FALSE(Segment::exists(name));
    const bool passes = std::find(flags.begin(), flags.end(), "--gradient-accumulation-steps") != flags.end();
    EXPECT_EQ(readFile(trace).find("pass 2: backward unit 1") != std::string::npos, passes) << tag;
    auto losses = metricsLosses(csv);
    std::remove(csv.c_str());
    std::remove(trace.c_str());
    return losses;
  };
  const auto micro = run({"--micro-batch-rows", "2", "--activations", "keep"}, "micro");
  const auto passes = run({"--gradient-accumulation-steps", "2", "--activations", "keep"}, "passes");
  const auto offload = run({"--gradient-accumulation-steps", "2", "--activations", "recompute",
                            "--offload-activations"}, "offload");
  ASSERT_EQ(micro.size(), 3u);
  for (const auto* other : {&passes, &offload}) {
    ASSERT_EQ(other->size(), 3u);
    for (int s = 1; s <= 3; ++s) {
      const double a = std::stod(micro.at(s)), b = std::stod(other->at(s));
      EXPECT_NEAR(b, a, 1e-5 * a) << "step " << s << (other == &passes ? " (kept)" : " (offloaded)");
    }
  }
}

TEST(GpuJob, HostEmbeddingLookupReadsTheSameRowsAsTheWindow) {
  // --embedding-lookup host (runtime/window_schedule.h): the forward's lookup of a tied
  // embedding reads the rows from the mapped delivery copy in host memory, and the copy into
  // the resident slot follows layer 2's for the head. Against `window` (the lookup after that
  // copy): step 1's loss is bit-identical (the same bf16 rows, the same kernels after them);
  // later steps agree to 1e-5 (the embedding backward's atomics add in any order). With 2
  // accumulation passes each pass looks up again; with 3 window slots the rotation differs.
  ASSERT_GE(visibleGpus(), 1);
  const char* env = std::getenv("SLIDEDP_SHARED_DIR");
  const std::string model = std::string(env ? env : SLIDEDP_SHARED_DIR) + "/models/stories260K";
  const std::string name = fmt::format("slidedp-gpu-lookup-{}", getpid());
  auto run = [&](const std::string& lookup, const std::vector<std::string>& flags) {
    const std::string csv = fmt::format("/tmp/{}-{}.csv", name, lookup), trace = csv + ".trace.json";
    std::vector<std::string> args = {"--shm-name", name, "--model", model, "--batch-size", "4",
                                     "--seq-len", "64", "--steps", "3", "--policy", "manual",
                                     "--embedding-lookup", lookup,
                                     "--metrics", csv, "--trace", trace, "--trace-step", "2"};
    args.insert(args.end(), flags.begin(), flags.end());
    Result r = wait(start(mpirunCuda(2, args)), 300);
    EXPECT_EQ(r.exit_code, 0) << lookup << "\n" << r.output;
    EXPECT_FALSE(Segment::exists(name));
    EXPECT_EQ(readFile(trace).find("forward unit 0 (lookup from host memory)") != std::string::npos,
              lookup == "host") << lookup;
    auto losses = metricsLosses(csv);
    std::remove(csv.c_str());
    std::remove(trace.c_str());
    return losses;
  };
  for (const auto& flags : std::vector<std::vector<std::string>>{
           {}, {"--gradient-accumulation-steps", "2"}, {"--window", "3"}}) {
    SCOPED_TRACE(flags.empty() ? std::string("one pass") : flags[0]);
    const auto window = run("window", flags), host = run("host", flags);
    ASSERT_EQ(window.size(), 3u);
    ASSERT_EQ(host.size(), 3u);
    EXPECT_EQ(host.at(1), window.at(1));
    for (int s = 2; s <= 3; ++s) {
      const double a = std::stod(window.at(s)), b = std::stod(host.at(s));
      EXPECT_NEAR(b, a, 1e-5 * a) << "step " << s;
    }
  }
}

TEST(GpuJob, GpuProfileWritesEachWorkersTraceAndTable) {
  // --gpu-profile: step 2 of a small Qwen3-shaped bf16 job (head_dim 128, q/k norm: the fused
  // kernels and cuDNN attention of the real shapes) under the torch profiler; every worker writes
  // its Chrome trace and the table, whose scopes and compute-stream line come from GPU events.
  // --memory-snapshot in the same job: every worker writes the allocator's pickled snapshot (one
  // worker here: 2 ranks are the leader and worker 0; the first GPU run of this test, 2026-12-05,
  // looked for a second worker's file that no rank writes).
  ASSERT_GE(visibleGpus(), 1);
  const std::string name = fmt::format("slidedp-gpu-prof-{}", getpid());
  const std::string dir = "/tmp/" + name, stem = dir + "/step";
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  const std::string config = dir + "/config.json";
  if (FILE* f = std::fopen(config.c_str(), "w")) {
    std::fputs(R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "head_dim": 128,
      "hidden_act": "silu", "hidden_size": 512, "intermediate_size": 1024,
      "max_position_embeddings": 4096, "num_attention_heads": 4, "num_hidden_layers": 2,
      "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000,
      "tie_word_embeddings": true, "vocab_size": 2048})", f);
    std::fclose(f);
  }
  Result r = wait(start(mpirunCuda(2, {"--shm-name", name, "--model-config", config, "--batch-size", "2",
                                       "--seq-len", "256", "--steps", "3", "--gpu-profile",
                                       stem + ".json", "--trace-step", "2", "--memory-snapshot",
                                       dir + "/mem"})), 300);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("GPU profile of step 2 written by every worker"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CUDA memory snapshot through step 2 written by every worker"), std::string::npos)
      << r.output;
  for (int w = 0; w < 1; ++w) {
    // torch's pickled snapshot: protocol 2+ starts with PROTO (0x80), and names its segments
    std::string pickle;
    if (FILE* f = std::fopen(fmt::format("{}/mem-w{}.pickle", dir, w).c_str(), "rb")) {
      char buf[4096];
      for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) pickle.append(buf, n);
      std::fclose(f);
    }
    ASSERT_GT(pickle.size(), 2u) << "no " << dir << "/mem-w" << w << ".pickle";
    EXPECT_EQ(static_cast<unsigned char>(pickle[0]), 0x80) << w;
    EXPECT_NE(pickle.find("segments"), std::string::npos) << w;
    EXPECT_NE(pickle.find("device_traces"), std::string::npos) << w;
  }
  EXPECT_NE(std::system(("test -e " + dir + "/mem-w1.pickle").c_str()), 0) << "a snapshot of no worker";
  std::string table;
  if (FILE* f = std::fopen((stem + "-w0.txt").c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) table.append(buf, n);
    std::fclose(f);
  }
  ASSERT_FALSE(table.empty()) << "no " << stem << "-w0.txt\n" << r.output;
  EXPECT_NE(table.find("PROFILE step 2 on worker 0 (2 rows x 256 tokens)"), std::string::npos) << table;
  for (const char* scope : {"fwd.qkv_proj", "fwd.attention", "bwd.down_proj.dW", "head.cross_entropy",
                            "worker.grad_zero", "Memcpy HtoD", "Memcpy DtoH", "compute stream: busy"})
    EXPECT_NE(table.find(scope), std::string::npos) << scope << "\n" << table;
  FILE* trace = std::fopen((stem + "-w0.json").c_str(), "r");
  EXPECT_NE(trace, nullptr) << stem << "-w0.json";
  if (trace) std::fclose(trace);
  EXPECT_FALSE(Segment::exists(name));
  std::system(("rm -rf " + dir).c_str());
}
