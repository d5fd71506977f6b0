// Liveness, not deadlines (design.md, "Liveness"; runtime/job_guard.h): a rank whose step is
// legitimately long is never killed, and a rank that is stopped is detected within the stall
// timeout, named, and every rank is gone promptly. The kill -9 cases are in
// test_training_failures.cpp and test_job_lifecycle.cpp.
//
// The liveness bounds are shortened (--heartbeat-timeout 2 --stall-timeout 2) so the tests
// stay fast; the slow step (SLIDEDP_TEST_SLOW_STEP, runtime/test_hooks.h) lasts 3x longer.
// A control run of the same slow job with a 2 s --wait-timeout fails, which proves the slow
// step really holds its peers in a wait that long, so the default run's success shows the
// wait no longer depends on a deadline.
#include <gtest/gtest.h>

#include "common/subprocess.h"
#include "shm/segment.h"

using namespace std::chrono;
using namespace slidedp::test;
using slidedp::shm::Segment;

namespace {
std::vector<std::string> train(std::vector<std::string> mpirun_extra, std::vector<std::string> extra) {
  std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none"};
  a.insert(a.end(), mpirun_extra.begin(), mpirun_extra.end());
  for (const char* s : {"-np", "3", SLIDEDP_WORKER_BIN, "--device", "cpu", "--batch-size", "4",
                        "--seq-len", "32", "--chunk-numel", "3000"})
    a.push_back(s);
  a.push_back("--model");
  a.push_back(stories());
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}
constexpr double kSlowStepS = 6;  // 3x the shortened liveness timeouts below
const std::vector<std::string> kShortLiveness = {"--heartbeat-timeout", "2", "--stall-timeout", "2"};
}  // namespace

TEST(Liveness, ASlowWorkerStepFinishesWithTheDefaults) {
  // Worker rank 2 sleeps in step 2, heartbeating: the leader waits ~6 s for its chunks, and
  // worker 1 for the leader's versions.
  const std::string slow = fmt::format("SLIDEDP_TEST_SLOW_STEP=2:2:{}", kSlowStepS);
  std::vector<std::string> opts = {"--steps", "3"};
  opts.insert(opts.end(), kShortLiveness.begin(), kShortLiveness.end());

  // Control: the same job with a deadline shorter than the slow step fails on it.
  std::vector<std::string> bounded = opts;
  bounded.insert(bounded.end(), {"--wait-timeout", "2"});
  Result c = wait(start(train({"-x", slow}, bounded)), 180);
  EXPECT_NE(c.exit_code, 0) << c.output;
  EXPECT_NE(c.output.find("timed out after"), std::string::npos) << c.output;

  // The defaults: no deadline; the slow rank is alive, so the job finishes.
  Result r = wait(start(train({"-x", slow}, opts)), 180);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("sleeps 6.0 s in step 2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("step 3/3"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("timed out"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("stalled"), std::string::npos) << r.output;
  std::printf("a %.0f s step with 2 s liveness timeouts: job finished in %.1f s\n", kSlowStepS,
              r.seconds);
}

TEST(Liveness, AStoppedRankIsDetectedWithinTheStallTimeoutAndNamed) {
  // The heartbeat timeout is long (60 s) here, so only the stall verdict (process state T,
  // progress counter unchanged for --stall-timeout 2) can end the job in time.
  for (int victim : {2, 0}) {
    const std::string name = fmt::format("slidedp-liveness-{}-{}", getpid(), victim);
    const std::string pids_file = "/tmp/" + name + ".pids";
    std::remove(pids_file.c_str());
    Proc p = start(train({}, {"--shm-name", name, "--pid-file", pids_file, "--steps", "100000",
                              "--heartbeat-timeout", "60", "--stall-timeout", "2"}));
    const auto pids = waitForPids(pids_file, 3);
    ASSERT_EQ(pids.size(), 3u);
    ASSERT_TRUE(waitForText(p, "step 3/", 120)) << readFile(p.log);
    const auto t0 = steady_clock::now();
    ASSERT_EQ(kill(pids[victim], SIGSTOP), 0);
    Result r = wait(p, 60);
    EXPECT_TRUE(waitAllGone(pids, 10)) << "a rank outlived the job by 10 s";
    const double s = duration<double>(steady_clock::now() - t0).count();
    std::printf("SIGSTOP of rank %d: detected and all ranks gone %.2f s later\n", victim, s);
    EXPECT_LT(s, 2.0 + 8.0) << r.output;
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find(fmt::format("rank {} (node 0, local rank {}, pid {}) is stalled",
                                        victim, victim, pids[victim])),
              std::string::npos)
        << r.output;
    EXPECT_FALSE(Segment::exists(name)) << r.output;
    for (pid_t pid : pids) kill(pid, SIGKILL);  // nothing left behind if an EXPECT failed
    std::remove(pids_file.c_str());
  }
}

// Before the segment exists there is no heartbeat to watch: a rank stopped while the job reads
// its data (held there 60 s by SLIDEDP_TEST_SLOW_STARTUP, as a large corpus would) used to hang
// every rank. The start-up watch (JobGuard::watchStartup) ends the job within the stall timeout
// and names the stopped rank; every rank is gone.
TEST(Liveness, AStoppedRankDuringStartUpEndsTheJobWithinTheStallTimeout) {
  for (int victim : {2, 0}) {
    const std::string name = fmt::format("slidedp-liveness-start-{}-{}", getpid(), victim);
    const std::string pids_file = "/tmp/" + name + ".pids";
    std::remove(pids_file.c_str());
    Proc p = start(train({"-x", "SLIDEDP_TEST_SLOW_STARTUP=60"},
                         {"--shm-name", name, "--pid-file", pids_file, "--steps", "3",
                          "--heartbeat-timeout", "60", "--stall-timeout", "2"}));
    const auto pids = waitForPids(pids_file, 3);
    ASSERT_EQ(pids.size(), 3u);
    const auto t0 = steady_clock::now();
    ASSERT_EQ(kill(pids[victim], SIGSTOP), 0);
    Result r = wait(p, 60);
    EXPECT_TRUE(waitAllGone(pids, 15)) << "a rank outlived the job by 15 s";
    const double s = duration<double>(steady_clock::now() - t0).count();
    std::printf("SIGSTOP of rank %d during start-up: all ranks gone %.2f s later\n", victim, s);
    EXPECT_LT(s, 2.0 + 10.0) << r.output;
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find(fmt::format("during start-up: rank {} (pid {}) has been stopped", victim,
                                        pids[victim])),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("step 1/"), std::string::npos) << r.output;
    EXPECT_FALSE(Segment::exists(name)) << r.output;
    for (pid_t pid : pids) kill(pid, SIGKILL);
    std::remove(pids_file.c_str());
  }
}

TEST(Liveness, AStoppedRankIsAlsoCaughtByTheHeartbeatTimeout) {
  // The other proof: with a long stall timeout (60 s), a stopped rank's silent heartbeat
  // thread (--heartbeat-timeout 2) ends the job, and the message names the rank.
  const std::string name = fmt::format("slidedp-liveness-hb-{}", getpid());
  const std::string pids_file = "/tmp/" + name + ".pids";
  std::remove(pids_file.c_str());
  Proc p = start(train({}, {"--shm-name", name, "--pid-file", pids_file, "--steps", "100000",
                            "--heartbeat-timeout", "2", "--stall-timeout", "60"}));
  const auto pids = waitForPids(pids_file, 3);
  ASSERT_EQ(pids.size(), 3u);
  ASSERT_TRUE(waitForText(p, "step 3/", 120)) << readFile(p.log);
  const auto t0 = steady_clock::now();
  ASSERT_EQ(kill(pids[1], SIGSTOP), 0);
  Result r = wait(p, 60);
  // The stopped rank is not continued on this path: mpirun ends it.
  EXPECT_TRUE(waitAllGone(pids, 15)) << "a rank outlived the job by 15 s";
  const double s = duration<double>(steady_clock::now() - t0).count();
  std::printf("SIGSTOP of rank 1, heartbeat path: all ranks gone %.2f s later\n", s);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find(fmt::format("rank 1 (node 0, local rank 1, pid {}) sent no heartbeat",
                                      pids[1])),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(Segment::exists(name)) << r.output;
  for (pid_t pid : pids) kill(pid, SIGKILL);
  std::remove(pids_file.c_str());
}

// --wait-timeout also holds while the leader lends its idle time to a streamed checkpoint's
// direct write (StreamedSafetensorsWriter::pumpIdle, leader.cpp's idle loop): a write slowed to
// 2 s per unit outlasts the worker's 10 s step, and the leader's 4 s deadline still ends the job
// 4 s into its wait, on the gradient it waits for. (Before, the deadline started only once the
// write was done, by when the slow worker had delivered: the job went on. With the pumping
// stopped at the deadline but the wait after it counting afresh, the job would end at 8 s.)
TEST(Liveness, WaitTimeoutHoldsWhileTheLeaderPumpsACheckpointWrite) {
  const std::string name = fmt::format("slidedp-liveness-pump-{}", getpid());
  const std::string dir = "/tmp/" + name + "-ckpt";
  std::system(("rm -rf " + dir).c_str());
  std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-x",
                                "SLIDEDP_TEST_SLOW_STEP=1:2:10", "-x",
                                "SLIDEDP_TEST_SLOW_CHECKPOINT=2", "-np", "2", SLIDEDP_WORKER_BIN,
                                "--device", "cpu", "--batch-size", "2", "--seq-len", "32",
                                "--model", stories(), "--steps", "3", "--shm-name", name,
                                "--checkpoint-dir", dir, "--checkpoint-every", "1",
                                "--checkpoint-io", "direct", "--wait-timeout", "4"};
  a.insert(a.end(), kShortLiveness.begin(), kShortLiveness.end());
  Proc p = start(a);
  // The leader's wait for step 2's first gradient starts right after this line.
  ASSERT_TRUE(waitForText(p, "checkpoint of step 1: streaming", 120)) << readFile(p.log);
  const auto t0 = steady_clock::now();
  Result r = wait(p, 180);
  const double s = duration<double>(steady_clock::now() - t0).count();
  std::printf("--wait-timeout 4 while pumping: the job ended %.2f s into the leader's wait\n", s);
  EXPECT_LT(s, 7.0) << "the deadline was not kept (4 s; 8 s if the wait after the pumping "
                       "counts afresh):\n" << r.output;
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("timed out after 4."), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("waiting for chunk_ready[slot"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("step 2/3"), std::string::npos) << "the leader waited past its deadline:\n"
                                                          << r.output;
  EXPECT_FALSE(Segment::exists(name)) << r.output;
  std::system(("rm -rf " + dir).c_str());
}
