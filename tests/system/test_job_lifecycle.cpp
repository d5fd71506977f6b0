// The job's lifecycle seen from outside, as a user or a batch system sees it: mpirun
// starts slidedp_worker; we read its output, its exit status, the processes left and
// /dev/shm. Every failure must end every rank promptly, say why, and leave no segment.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "shm/segment.h"
#include "common/subprocess.h"  // tests/common

using namespace std::chrono;
using namespace slidedp::test;
using slidedp::shm::Segment;

namespace {

std::vector<std::string> mpirun(int np, std::vector<std::string> extra) {
  std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none",
                                "-np", std::to_string(np), SLIDEDP_WORKER_BIN, "--device", "cpu"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

/// Rows of the topology table with the given role (5th column).
int countRole(const std::string& out, const std::string& role) {
  std::istringstream in(out);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    std::istringstream cols(line);
    std::string c[5];
    if (cols >> c[0] >> c[1] >> c[2] >> c[3] >> c[4] && c[4] == role &&
        c[0].find_first_not_of("0123456789") == std::string::npos)
      ++n;
  }
  return n;
}

std::string uniqueName(const char* tag) { return fmt::format("slidedp-sys-{}-{}", tag, getpid()); }

}  // namespace

TEST(MainJob, ThreeRanksPrintRolesAndLayoutAndExitZero) {
  const std::string name = uniqueName("main3");
  Result r = wait(start(mpirun(3, {"--shm-name", name})));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(countRole(r.output, "leader"), 1) << r.output;
  EXPECT_EQ(countRole(r.output, "worker"), 2) << r.output;
  EXPECT_NE(r.output.find("state.master.f32"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("grad.staging"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("staging hand-off: 64 chunks"), std::string::npos) << r.output;
  EXPECT_FALSE(Segment::exists(name));
}

TEST(MainJob, FiveRanksOnOneNodeAndSixOnVirtualNodes) {
  const std::string name = uniqueName("main5");
  Result one = wait(start(mpirun(5, {"--shm-name", name})));
  EXPECT_EQ(one.exit_code, 0) << one.output;
  EXPECT_EQ(countRole(one.output, "worker"), 4) << one.output;
  EXPECT_EQ(countRole(one.output, "leader"), 1) << one.output;
  // Virtual nodes are equal blocks (1 leader + 2 workers each): 6 ranks, 2 nodes.
  Result two = wait(start(mpirun(6, {"--shm-name", name, "--virtual-node-size", "3"})));
  EXPECT_EQ(two.exit_code, 0) << two.output;
  EXPECT_NE(two.output.find("2 node(s), 4 worker(s)"), std::string::npos) << two.output;
  EXPECT_EQ(countRole(two.output, "leader"), 2) << two.output;
  EXPECT_NE(two.output.find("/dev/shm/" + name + "-n0"), std::string::npos) << two.output;
  EXPECT_NE(two.output.find("/dev/shm/" + name + "-n1"), std::string::npos) << two.output;
  EXPECT_FALSE(Segment::exists(name + "-n0"));
  EXPECT_FALSE(Segment::exists(name + "-n1"));
}

TEST(Failures, OneRankThrowsEveryRankExitsWithItsMessage) {
  for (int np : {2, 3, 5}) {
    const std::string name = uniqueName("abort");
    const std::string pids_file = fmt::format("/tmp/{}-{}.pids", name, np);
    std::remove(pids_file.c_str());
    const int bad = np - 1;
    Result r = wait(start(mpirun(np, {"--shm-name", name, "--pid-file", pids_file, "--fail-rank",
                                      std::to_string(bad), "--fail-message", "disk on fire"})));
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_LT(r.seconds, 30) << r.output;
    // The error is printed once, by the rank that failed; every other rank says why it exits.
    EXPECT_EQ(countOccurrences(r.output, ") failed: disk on fire"), 1) << r.output;
    EXPECT_EQ(countOccurrences(r.output, "failed: disk on fire"), 1) << r.output;
    EXPECT_EQ(countOccurrences(r.output, fmt::format("exits: rank {} ended the job", bad)), np - 1)
        << r.output;
    EXPECT_TRUE(waitAllGone(waitForPids(pids_file, np, 1), 10)) << "a rank outlived the job by 10 s";
    EXPECT_FALSE(Segment::exists(name)) << "segment left behind (np " << np << ")";
    std::remove(pids_file.c_str());
  }
}

TEST(Failures, KillNineOfAWorkerOrTheLeaderEndsAllRanksWithinTenSeconds) {
  for (int victim : {1, 0}) {
    const std::string name = uniqueName("kill9");
    const std::string pids_file = fmt::format("/tmp/{}-{}.pids", name, victim);
    std::remove(pids_file.c_str());
    Proc p = start(mpirun(3, {"--shm-name", name, "--pid-file", pids_file, "--hold", "120"}));
    const std::vector<pid_t> pids = waitForPids(pids_file, 3);
    ASSERT_EQ(pids.size(), 3u);
    waitUntilExists(name);
    std::this_thread::sleep_for(milliseconds(300));  // mid-run: set-up done, holding
    const auto killed_at = steady_clock::now();
    ASSERT_EQ(kill(pids[victim], SIGKILL), 0);
    Result r = wait(p, 60);
    EXPECT_TRUE(waitAllGone(pids, 10)) << "a rank outlived the job by 10 s";
    const double after_kill = duration<double>(steady_clock::now() - killed_at).count();
    EXPECT_LT(after_kill, 10.0) << r.output;
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_FALSE(Segment::exists(name)) << "segment left after kill -9 of rank " << victim;
    std::remove(pids_file.c_str());
    RecordProperty(fmt::format("seconds_to_teardown_after_kill_rank{}", victim),
                   fmt::format("{:.2f}", after_kill));
    std::printf("kill -9 of rank %d: all ranks gone %.2f s later\n", victim, after_kill);
  }
}

TEST(Failures, SigintToMpirunRemovesTheSegment) {
  const std::string name = uniqueName("sigint");
  const std::string pids_file = fmt::format("/tmp/{}.pids", name);
  std::remove(pids_file.c_str());
  Proc p = start(mpirun(3, {"--shm-name", name, "--pid-file", pids_file, "--hold", "120"}));
  const std::vector<pid_t> pids = waitForPids(pids_file, 3);
  waitUntilExists(name);
  std::this_thread::sleep_for(milliseconds(300));
  kill(p.pid, SIGINT);  // what Ctrl-C sends
  Result r = wait(p, 60);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_TRUE(waitAllGone(pids, 10)) << "a rank outlived the job by 10 s";
  EXPECT_FALSE(Segment::exists(name)) << r.output;
  std::remove(pids_file.c_str());
}

TEST(Failures, StaleSegmentOfACrashedJobIsRemovedAtTheNextStart) {
  const std::string name = uniqueName("stale");
  const std::string pids_file = fmt::format("/tmp/{}.pids", name);
  std::remove(pids_file.c_str());
  Proc p = start(mpirun(3, {"--shm-name", name, "--pid-file", pids_file, "--hold", "120"}));
  const std::vector<pid_t> pids = waitForPids(pids_file, 3);
  waitUntilExists(name);
  // Only once the leader has published the segment's header: the file of a segment still
  // being created is left alone for a minute (its creator may be alive).
  for (int i = 0; i < 3000 && readFile(p.log).find("holding for") == std::string::npos; ++i)
    std::this_thread::sleep_for(milliseconds(20));
  // A crash no handler sees: every rank SIGKILLed at once (as the OOM killer or a node
  // reset would), so nobody removes the segment. Stopped first, all of them: killed one after
  // another, a rank still running could see a peer die and clean up in between (a loaded CI
  // machine widens that window).
  for (pid_t pid : pids) kill(pid, SIGSTOP);
  for (pid_t pid : pids) kill(pid, SIGKILL);
  wait(p, 60);
  ASSERT_TRUE(Segment::exists(name)) << "the crash should leave the segment behind";
  Result next = wait(start(mpirun(3, {"--shm-name", uniqueName("next")})));
  EXPECT_EQ(next.exit_code, 0) << next.output;
  EXPECT_NE(next.output.find("removed stale shared segment /dev/shm/" + name), std::string::npos)
      << next.output;
  EXPECT_FALSE(Segment::exists(name));
  std::remove(pids_file.c_str());
}

TEST(Failures, SegmentLargerThanDevShmFailsUpFront) {
  const std::string name = uniqueName("huge");
  const uint64_t too_much = Segment::shmFreeBytes() + (4ull << 30);
  Result r = wait(start(mpirun(3, {"--shm-name", name, "--extra-state-bytes",
                                   std::to_string(too_much)})));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("it needs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("free"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("HINT"), std::string::npos) << r.output;
  EXPECT_FALSE(Segment::exists(name));
}

TEST(BadLaunch, FewerThanTwoRanksOrNoMpirunIsAClearError) {
  Result one = wait(start(mpirun(1, {})));
  EXPECT_EQ(one.exit_code, 2) << one.output;
  EXPECT_NE(one.output.find("needs at least 2 ranks"), std::string::npos) << one.output;
  Result bare = wait(start({SLIDEDP_WORKER_BIN}));
  EXPECT_EQ(bare.exit_code, 2) << bare.output;
  EXPECT_NE(bare.output.find("without mpirun"), std::string::npos) << bare.output;
  Result vnode = wait(start(mpirun(3, {"--virtual-node-size", "2"})));  // nodes of 2 + 1
  EXPECT_EQ(vnode.exit_code, 2) << vnode.output;
  EXPECT_NE(vnode.output.find("--virtual-node-size 2 does not divide the 3 ranks"), std::string::npos)
      << vnode.output;
  Result flag = wait(start(mpirun(2, {"--ring-slots", "0"})));
  EXPECT_NE(flag.exit_code, 0) << flag.output;
  EXPECT_NE(flag.output.find("--ring-slots"), std::string::npos) << flag.output;
}
