// Tests of the work-stealing schedule of the optimizer engine's passes (optim/block_stealing.h,
// StealSchedule):
// every element exactly once, block indices in element order, a team smaller than asked still
// covers everything, and a stalled thread's untaken blocks are run by the others.
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "optim/adamw.h"
#include "optim/block_stealing.h"

namespace slidedp::optim {
namespace {

struct Visit {
  int64_t begin = -1, end = -1;
  int thread = -1;
};

// Runs a StealSchedule over the engine's static partition and checks the coverage contract.
std::vector<Visit> runAndCheck(int64_t n, int team, int64_t block) {
  auto rangeOf = [&](int t, int64_t* b, int64_t* e) { partitionRange(n, team, t, b, e); };
  StealSchedule schedule(team, block, rangeOf);
  const int64_t blocks = schedule.numBlocks();
  std::vector<Visit> visits(blocks);
  std::unique_ptr<std::atomic<int>[]> hits(new std::atomic<int>[n]);
  for (int64_t i = 0; i < n; ++i) hits[i] = 0;
  std::atomic<int> calls{0};
  schedule.run([&](int64_t b, int64_t e, int64_t index) {
    calls.fetch_add(1);
    if (index < 0 || index >= blocks) return;  // reported below through calls != blocks
    visits[index] = {b, e, omp_get_thread_num()};
    for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1);
  });
  EXPECT_EQ(calls.load(), blocks) << "n=" << n << " team=" << team << " block=" << block;
  for (int64_t i = 0; i < n; ++i)
    if (hits[i] != 1) {
      ADD_FAILURE() << "element " << i << " visited " << hits[i] << " times (n=" << n
                    << " team=" << team << " block=" << block << ")";
      break;
    }
  for (int64_t k = 0; k < blocks; ++k) {  // indices in element order, blocks at most `block` long
    EXPECT_LT(visits[k].begin, visits[k].end) << "block " << k;
    EXPECT_LE(visits[k].end - visits[k].begin, block) << "block " << k;
    if (k > 0) {
      EXPECT_EQ(visits[k - 1].end, visits[k].begin) << "block " << k;
    }
  }
  if (blocks > 0) {
    EXPECT_EQ(visits.front().begin, 0);
    EXPECT_EQ(visits.back().end, n);
  }
  return visits;
}

TEST(BlockStealing, EveryElementOnceAndBlockIndicesInElementOrder) {
  for (int64_t n : {int64_t{1}, int64_t{63}, int64_t{64}, int64_t{1000}, kStealBlock * 3 + 5, int64_t{100003}})
    for (int team : {1, 2, 3, 4, 7})
      for (int64_t block : {int64_t{1}, int64_t{64}, int64_t{1000}, kStealBlock}) {
        if (n / block > 200000) continue;  // block 1 on the largest n: slow, adds nothing
        runAndCheck(n, team, block);
      }
}

TEST(BlockStealing, ATeamSmallerThanAskedStillCoversEveryRange) {
  // Inside a parallel region with nesting off, the inner team has one thread for 4 ranges.
  const int levels = omp_get_max_active_levels();
  omp_set_max_active_levels(1);
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    runAndCheck(kStealBlock * 8 + 17, 4, kStealBlock);
  }
  omp_set_max_active_levels(levels);
}

TEST(BlockStealing, AStalledThreadsUntakenBlocksAreRunByTheOthers) {
  if (omp_get_thread_limit() < 2)
    GTEST_SKIP() << "OMP_THREAD_LIMIT=" << omp_get_thread_limit() << ": stealing needs 2 threads";
  const int team = 2;
  const int64_t block = 64, n = block * 40;  // 20 blocks per range
  auto rangeOf = [&](int t, int64_t* b, int64_t* e) { partitionRange(n, team, t, b, e); };
  int64_t end0, ignored;
  rangeOf(0, &ignored, &end0);
  const int blocks0 = static_cast<int>(end0 / block);
  std::atomic<int> team_seen{0}, done0{0};
  StealSchedule schedule(team, block, rangeOf);
  std::vector<int> ran_by(schedule.numBlocks(), -1);
  schedule.run([&](int64_t b, int64_t, int64_t index) {
    team_seen = omp_get_num_threads();
    ran_by[index] = omp_get_thread_num();
    if (b == 0) {
      // The thread that takes range 0's first block stalls until the rest of range 0 has been
      // run, which only another thread can do meanwhile (bounded: a team of one never does).
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (done0 < blocks0 - 1 && omp_get_num_threads() > 1 &&
             std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    } else if (b < end0) {
      ++done0;
    }
  });
  ASSERT_EQ(team_seen.load(), team) << "OpenMP gave a smaller team";
  ASSERT_EQ(done0.load(), blocks0 - 1);
  for (int k = 1; k < blocks0; ++k)
    EXPECT_NE(ran_by[k], ran_by[0]) << "block " << k << " of range 0 waited for its stalled owner";
}

}  // namespace
}  // namespace slidedp::optim
