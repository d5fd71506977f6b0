// common/thread_placement.h: helper threads started by a main thread that OpenMP bound to one
// core run on every core of the rank. CTest runs this binary with OMP_PROC_BIND=close and
// OMP_PLACES=cores, as launcher/slidedp-run runs every rank.
#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "common/thread_placement.h"

namespace {

cpu_set_t maskOfThisThread() {
  cpu_set_t s;
  CPU_ZERO(&s);
  EXPECT_EQ(sched_getaffinity(0, sizeof(s), &s), 0);  // 0: the calling thread
  return s;
}

int placeCpus() {
  int n = 0;
  for (int p = 0; p < omp_get_num_places(); ++p) n += omp_get_place_num_procs(p);
  return n;
}

}  // namespace

TEST(ThreadPlacement, HelperThreadsLeaveTheCoreOfTheBoundMainThread) {
  ASSERT_NE(std::getenv("OMP_PLACES"), nullptr) << "run through ctest (it sets OMP_PLACES=cores)";
  if (omp_get_num_places() < 2) GTEST_SKIP() << "one core: there is nothing to spread over";
  const cpu_set_t main_mask = maskOfThisThread();
  ASSERT_EQ(CPU_COUNT(&main_mask), 1) << "libgomp did not bind the initial thread: the premise "
                                         "of common/thread_placement.h does not hold here";
  int inherited = 0, widened = 0;
  bool has_main_core = false;
  bool ok = false;
  std::thread t([&] {
    const cpu_set_t before = maskOfThisThread();
    inherited = CPU_COUNT(&before);
    ok = slidedp::useAllRankCores();
    const cpu_set_t after = maskOfThisThread();
    widened = CPU_COUNT(&after);
    cpu_set_t both;
    CPU_AND(&both, &after, &main_mask);
    has_main_core = CPU_COUNT(&both) == 1;
  });
  t.join();
  EXPECT_EQ(inherited, 1) << "a std::thread inherits its creator's one core";
  EXPECT_TRUE(ok);
  EXPECT_EQ(widened, placeCpus()) << "every CPU of every OpenMP place";
  EXPECT_TRUE(has_main_core);
  const cpu_set_t still = maskOfThisThread();
  EXPECT_EQ(CPU_COUNT(&still), 1) << "the caller's own thread keeps its binding";
}

// The leader's CPU check counts the rank's cores, not the bound initial thread's one core:
// under the launcher (OMP_PLACES=cores, as here) it read 1 of 16 CPUs and warned of a one-core
// binding that was not there. Checked from the bound main thread and from a helper thread.
TEST(ThreadPlacement, RankCpuCountIsEveryPlaceNotTheBoundThreadsCore) {
  ASSERT_NE(std::getenv("OMP_PLACES"), nullptr) << "run through ctest (it sets OMP_PLACES=cores)";
  ASSERT_GT(omp_get_num_places(), 0);
  const cpu_set_t main_mask = maskOfThisThread();
  EXPECT_EQ(slidedp::rankCpuCount(), placeCpus());
  EXPECT_GE(slidedp::rankCpuCount(), CPU_COUNT(&main_mask));
  if (omp_get_num_places() >= 2) {
    EXPECT_EQ(CPU_COUNT(&main_mask), 1) << "the premise: libgomp bound the initial thread";
    EXPECT_GT(slidedp::rankCpuCount(), 1);
  }
  int from_helper = 0;
  std::thread t([&] { from_helper = slidedp::rankCpuCount(); });
  t.join();
  EXPECT_EQ(from_helper, placeCpus());
}

TEST(ThreadPlacement, LowerThreadPriorityMakesThisThreadIdleClassOnly) {
  const int main_policy = sched_getscheduler(0);
  int helper_policy = -1, grandchild_policy = -1;
  std::thread t([&] {
    slidedp::lowerThreadPriority();
    helper_policy = sched_getscheduler(0);  // 0: the calling thread
    std::thread g([&] { grandchild_policy = sched_getscheduler(0); });
    g.join();
  });
  t.join();
  EXPECT_EQ(helper_policy, SCHED_IDLE);
  EXPECT_EQ(grandchild_policy, SCHED_IDLE) << "threads it starts inherit the class";
  EXPECT_EQ(sched_getscheduler(0), main_policy) << "the caller's own thread is unchanged";
  EXPECT_NE(main_policy, SCHED_IDLE);
}

// The leader's CPUs against the node's (train_job.cpp logs it on the leader): bare mpirun's
// one-core binding on a 16-CPU, 1-GPU node warns and names both remedies; the launcher's
// placement (14 leader cores) and a small machine where one core is all there is to spare do not.
TEST(ThreadPlacement, LeaderCpuWarningWhenBoundToFewCores) {
  const std::string w = slidedp::leaderCpuWarning(1, 16, 1);
  EXPECT_NE(w.find("1 of this node's 16 CPUs"), std::string::npos) << w;
  EXPECT_NE(w.find("launcher/slidedp-run"), std::string::npos) << w;
  EXPECT_NE(w.find("--bind-to none"), std::string::npos) << w;
  EXPECT_EQ(slidedp::leaderCpuWarning(14, 16, 1), "");
  EXPECT_EQ(slidedp::leaderCpuWarning(8, 16, 1), "");   // 16 = 2 x 8 >= 15
  EXPECT_NE(slidedp::leaderCpuWarning(7, 16, 1), "");   // 14 < 15
  EXPECT_EQ(slidedp::leaderCpuWarning(1, 2, 1), "");    // CI's 2 cores: one each
  EXPECT_EQ(slidedp::leaderCpuWarning(16, 16, 8), "");  // a socket's worth beside 8 workers
  EXPECT_EQ(slidedp::leaderCpuWarning(4, 16, 8), "");   // 8 = 2 x 4 >= 16 - 8
}

// The node's CPUs for that comparison come from the cgroup's cpuset (a container's or a Slurm
// allocation's), not from every CPU the host has online.
TEST(ThreadPlacement, CpuListsAndTheCgroupCpuset) {
  EXPECT_EQ(slidedp::cpuListCount("0-3,8,10-11"), 7);
  EXPECT_EQ(slidedp::cpuListCount("0-15\n"), 16);
  EXPECT_EQ(slidedp::cpuListCount("5"), 1);
  EXPECT_EQ(slidedp::cpuListCount(""), 0);
  EXPECT_EQ(slidedp::cpuListCount("3-1"), 0);
  EXPECT_EQ(slidedp::cpuListCount("0-3;7"), 0);
  EXPECT_EQ(slidedp::cpuListCount("a-b"), 0);
  // This process runs inside its cgroup's cpuset: at least its own affinity, at most online.
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  const int n = slidedp::nodeCpuCount();
  EXPECT_GE(n, CPU_COUNT(&set));
  EXPECT_LE(n, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
}
