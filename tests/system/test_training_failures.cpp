// Failures in the middle of training (slidedp_worker with --model): a worker or the leader
// killed with SIGKILL mid-step ends every rank within 10 s and leaves no segment; a bad batch
// (a token id outside the vocabulary) ends every rank with that message.
#include <gtest/gtest.h>

#include "common/subprocess.h"
#include "shm/segment.h"

using namespace std::chrono;
using namespace slidedp::test;
using slidedp::shm::Segment;

namespace {
std::vector<std::string> train(int np, std::vector<std::string> extra, std::string seq_len = "64") {
  std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np",
                                std::to_string(np), SLIDEDP_WORKER_BIN, "--device", "cpu",
                                "--model", stories(), "--batch-size", "4", "--seq-len", seq_len,
                                "--chunk-numel", "3000"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}
}  // namespace

TEST(TrainingFailures, KillNineMidStepEndsAllRanksWithinTenSeconds) {
  for (int victim : {2, 0}) {
    const std::string name = fmt::format("slidedp-systrain-{}-{}", getpid(), victim);
    const KillNineResult k = killNineDuringTraining(train(3, {"--steps", "100000"}), name, 3, victim);
    if (k.seconds < 0) return;
    std::printf("kill -9 of rank %d during training: all ranks gone %.2f s later\n", victim, k.seconds);
    EXPECT_FALSE(Segment::exists(name)) << k.job.output;
  }
}

TEST(TrainingFailures, BadOptionsEndEveryRankWithTheMessage) {
  Result r = wait(start(train(3, {"--steps", "2"}, "1")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--seq-len >= 2"), std::string::npos) << r.output;
  Result m = wait(start(train(3, {"--steps", "2", "--model-config", stories()})));
  EXPECT_EQ(m.exit_code, 2) << m.output;
  EXPECT_NE(m.output.find("exactly one of --model"), std::string::npos) << m.output;
}

TEST(TrainingFailures, CudaIpcRoutesOnCpuWorkersAreRefusedBeforeStartUp) {
  // The IPC routes need GPU workers: refused with one message on every rank, exit status 2, for
  // the route options and for a sweep item alike; an unknown route names the ones there are.
  const std::vector<std::vector<std::string>> cases = {
      {"--delivery", "sharded-ipc"},
      {"--reduction", "gpu-ipc"},
      {"--route-sweep", "replicated/cpu,sharded/gpu-ipc"}};
  for (const auto& c : cases) {
    std::vector<std::string> extra = {"--steps", "1"};
    extra.insert(extra.end(), c.begin(), c.end());
    Result r = wait(start(train(3, extra)));
    EXPECT_EQ(r.exit_code, 2) << c[1] << "\n" << r.output;
    EXPECT_NE(r.output.find("need GPU workers"), std::string::npos) << c[1] << "\n" << r.output;
    EXPECT_EQ(r.output.find("M parameters"), std::string::npos) << "refused before start-up: " << r.output;
  }
  Result u = wait(start(train(3, {"--steps", "1", "--delivery", "sharded-nvlink"})));
  EXPECT_EQ(u.exit_code, 2) << u.output;
  EXPECT_NE(u.output.find("unknown delivery route 'sharded-nvlink'"), std::string::npos) << u.output;
  EXPECT_NE(u.output.find("sharded-ipc"), std::string::npos) << u.output;
}
