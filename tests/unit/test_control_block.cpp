// Control block: counter layout, hand-off between threads, bounded waits, abort flag.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include "common/errors.h"
#include "shm/control_block.h"

using namespace slidedp;
using namespace slidedp::shm;

namespace {
struct Region {
  explicit Region(size_t bytes) : p(static_cast<char*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64))), n(bytes) {
    std::memset(p, 0, n);
  }
  ~Region() { std::free(p); }
  char* p;
  size_t n;
};
}  // namespace

TEST(ControlBlock, SizesAndPadding) {
  EXPECT_EQ(sizeof(PaddedCounter), 64u);
  EXPECT_EQ(sizeof(RankSlot), 64u);
  EXPECT_EQ(ControlBlock::bytesFor(3, 7, 4) % 64, 0u);
  Region r(ControlBlock::bytesFor(3, 7, 4));
  ControlBlock cb = ControlBlock::initialize(r.p, r.n, 3, 7, 4);
  // Every counter on its own cache line, all distinct.
  std::vector<uintptr_t> addrs;
  for (uint32_t l = 0; l < 7; ++l) addrs.push_back(reinterpret_cast<uintptr_t>(&cb.layerVersion(l)));
  for (uint32_t s = 0; s < 4; ++s)
    for (uint32_t k = 0; k < 3; ++k) {
      addrs.push_back(reinterpret_cast<uintptr_t>(&cb.chunkReady(s, k)));
      addrs.push_back(reinterpret_cast<uintptr_t>(&cb.chunkConsumed(s, k)));
    }
  std::sort(addrs.begin(), addrs.end());
  for (size_t i = 0; i < addrs.size(); ++i) {
    EXPECT_EQ(addrs[i] % 64, 0u);
    if (i) {
      EXPECT_GE(addrs[i] - addrs[i - 1], 64u);
    }
    EXPECT_LT(addrs[i] + 64, reinterpret_cast<uintptr_t>(r.p) + r.n + 1);
  }
  ControlBlock again = ControlBlock::attach(r.p, r.n);
  EXPECT_EQ(again.numRanks(), 3u);
  EXPECT_EQ(again.numLayers(), 7u);
  EXPECT_EQ(again.numSlots(), 4u);
  EXPECT_THROW(ControlBlock::attach(r.p, 64), std::runtime_error);
}

TEST(ControlBlock, HandOffBetweenThreadsPublishesData) {
  Region r(ControlBlock::bytesFor(2, 1, 2));
  ControlBlock cb = ControlBlock::initialize(r.p, r.n, 2, 1, 2);
  constexpr int kRounds = 2000, kN = 256;
  std::vector<int> slots(2 * kN, -1);
  std::thread producer([&] {
    for (int k = 0; k < kRounds; ++k) {
      const int s = k % 2;
      cb.waitAtLeast(cb.chunkConsumed(s, 1), k / 2, 10, "producer", {});
      for (int i = 0; i < kN; ++i) slots[s * kN + i] = k * 1000 + i;
      cb.chunkReady(s, 1).store(k / 2 + 1);
    }
  });
  long long sum = 0;
  for (int k = 0; k < kRounds; ++k) {
    const int s = k % 2;
    cb.waitAtLeast(cb.chunkReady(s, 1), k / 2 + 1, 10, "consumer", {});
    for (int i = 0; i < kN; ++i) {
      ASSERT_EQ(slots[s * kN + i], k * 1000 + i) << "round " << k;
      sum += slots[s * kN + i];
    }
    cb.chunkConsumed(s, 1).store(k / 2 + 1);
  }
  producer.join();
  EXPECT_GT(sum, 0);
}

TEST(ControlBlock, TimeoutNamesRankAndCounter) {
  Region r(ControlBlock::bytesFor(2, 3, 1));
  ControlBlock cb = ControlBlock::initialize(r.p, r.n, 2, 3, 1);
  cb.layerVersion(2).store(4);
  try {
    cb.waitAtLeast(cb.layerVersion(2), 5, 0.05, "worker 3", [] { return "layer_version[2]"; });
    FAIL() << "no timeout";
  } catch (const TimeoutError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("worker 3"), std::string::npos) << m;
    EXPECT_NE(m.find("layer_version[2]"), std::string::npos) << m;
    EXPECT_NE(m.find("reach 5"), std::string::npos) << m;
    EXPECT_NE(m.find("it is 4"), std::string::npos) << m;
  }
  // Already satisfied: returns at once with the value.
  EXPECT_EQ(cb.waitAtLeast(cb.layerVersion(2), 4, 0.0, "x", {}), 4u);
}

TEST(ControlBlock, AbortKeepsFirstErrorAndWakesWaiters) {
  Region r(ControlBlock::bytesFor(2, 1, 1));
  ControlBlock cb = ControlBlock::initialize(r.p, r.n, 2, 1, 1);
  EXPECT_FALSE(cb.aborted());
  EXPECT_EQ(cb.abortRank(), -1);
  std::thread waiter([&] {
    EXPECT_THROW(cb.waitAtLeast(cb.layerVersion(0), 1, 30, "worker 1", {}), JobAbortedError);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(cb.setAbort(2, "first error"));
  EXPECT_FALSE(cb.setAbort(1, "second error"));
  waiter.join();
  EXPECT_TRUE(cb.aborted());
  EXPECT_EQ(cb.abortRank(), 2);
  EXPECT_EQ(cb.abortMessage(), "first error");
  // Long messages are truncated, never overflow.
  Region r2(ControlBlock::bytesFor(1, 1, 1));
  ControlBlock cb2 = ControlBlock::initialize(r2.p, r2.n, 1, 1, 1);
  cb2.setAbort(0, std::string(10000, 'x'));
  EXPECT_EQ(cb2.abortMessage().size(), kAbortMessageBytes - 1);
}

TEST(ControlBlock, WaitWithoutDeadlineOutlastsASlowProducerAndCountsProgress) {
  // timeout_s = 0 (the runtime's default): no deadline; the wait returns whenever the
  // producer publishes, here after 1.5 s (well past the 0.05 s deadline of the test above).
  Region r(ControlBlock::bytesFor(2, 1, 1));
  ControlBlock cb = ControlBlock::initialize(r.p, r.n, 2, 1, 1);
  const uint64_t before = progressCount();
  std::thread producer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    cb.layerVersion(0).store(3);
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(cb.waitAtLeast(cb.layerVersion(0), 3, 0, "worker 1", {}), 3u);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  producer.join();
  EXPECT_GE(s, 1.4);
  EXPECT_EQ(progressCount(), before + 1);  // one completed wait
  // And only the abort flag ends such a wait early.
  std::thread waiter([&] {
    EXPECT_THROW(cb.waitAtLeast(cb.layerVersion(0), 4, 0, "worker 1", {}), JobAbortedError);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  cb.setAbort(1, "peer stalled");
  waiter.join();
}

// The graceful stop's line is said by one rank of the node: the first of the ranks (here threads)
// that claim it, whichever of them the signal reached first; another view of the same region
// (another process attached) sees the claim.
TEST(ControlBlock, OneRankClaimsTheStopAnnouncement) {
  Region r(ControlBlock::bytesFor(4, 1, 1));
  ControlBlock cb = ControlBlock::initialize(r.p, r.n, 4, 1, 1);
  std::atomic<int> claimed{0};
  std::vector<std::thread> ranks;
  for (int i = 0; i < 4; ++i) ranks.emplace_back([&] { claimed += cb.claimStopAnnouncement() ? 1 : 0; });
  for (std::thread& t : ranks) t.join();
  EXPECT_EQ(claimed.load(), 1);
  EXPECT_FALSE(ControlBlock::attach(r.p, r.n).claimStopAnnouncement());
}
